package dev.tandem.controller;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.WriteRefusal;
import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Only a storage refusal that means the catalog's guard moved (another replica changed it first) is a {@link Catalog.Moved}. */
class CatalogMovedTest {

    private static final CatalogEntry.View VIEW = new CatalogEntry.View("u1", "v", null, Schema.ofTypes(List.of(DatumType.INT64)));

    /** A catalog over a storage whose every catalog change fails with {@code refusal}. */
    private static Catalog refusing(RuntimeException refusal) {
        TableStorage storage = (TableStorage) Proxy.newProxyInstance(TableStorage.class.getClassLoader(), new Class<?>[] {TableStorage.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("changeCatalog")) {
                        throw refusal;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        return new Catalog(storage);
    }

    @Test
    void aMovedGuardIsTheCatalogMoving() {
        assertThatThrownBy(() -> refusing(new WriteRefusal(WriteRefusal.Reason.GUARD_MOVED, "moved")).remove(VIEW))
                .isInstanceOf(Catalog.Moved.class).hasMessage("moved");
    }

    @Test
    void anyOtherRefusalIsNoMove() {
        for (WriteRefusal.Reason r : WriteRefusal.Reason.values()) {
            if (r != WriteRefusal.Reason.GUARD_MOVED) {
                WriteRefusal refusal = new WriteRefusal(r, "refused");
                assertThatThrownBy(() -> refusing(refusal).remove(VIEW)).isSameAs(refusal);
            }
        }
        IllegalArgumentException other = new IllegalArgumentException("an id must be a non-empty string");
        assertThatThrownBy(() -> refusing(other).remove(VIEW)).isSameAs(other);
    }
}
