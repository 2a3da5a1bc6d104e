package dev.tandem.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The read policy's time choice alone, over indexes in random states (as_of, upper, compaction
 * frontier), against a model written out case by case; and a refused read leaves no hold behind.
 */
class ReadPolicyTest {

    static final long NOW = 1_000_000;
    Scheduler timer;
    TableStorage storage;
    ReadPolicy policy;

    @BeforeEach
    void policy() {
        timer = Schedulers.newSingle("policy-test");
        storage = TableStorages.inMemory(StorageOptions.defaults(timer));
        policy = new ReadPolicy(storage, () -> NOW, () -> ControllerSettings.DEFAULTS, new IndexTracker(), null);
    }

    @AfterEach
    void close() {
        storage.close();
        timer.dispose();
    }

    static IndexState index(int n, long asOf, Long upper, long since) {
        Schema schema = new Schema(List.of(new Column("k", DatumType.INT64, false)));
        IndexState s = new IndexState(new CatalogEntry.Index("u" + n, "i" + n, "t", List.of("k"), schema, 0), asOf);
        s.upper = upper == null ? Frontier.EMPTY : Frontier.at(upper);
        s.reads.compactTo(since);
        return s;
    }

    /** The model: what a read over {@code inputs} should read at, or null when it must be refused. */
    static Long expected(List<IndexState> inputs, boolean strict, Long asOf, long lastWrite) {
        long since = Long.MIN_VALUE;
        for (IndexState s : inputs) {
            if (s.reads.since().time() > since) {
                since = s.reads.since().time();
            }
        }
        if (asOf != null) {
            return asOf >= since ? asOf : null;
        }
        if (strict) {
            return lastWrite > since ? lastWrite : since;
        }
        boolean anyOpen = false;
        long sealed = Long.MAX_VALUE;
        for (IndexState s : inputs) {
            if (s.upper.isEmpty()) {
                continue;
            }
            anyOpen = true;
            // complete through upper - 1, and never before where its dataflow started
            long through = s.upper.time() - 1 < s.asOf ? s.asOf : s.upper.time() - 1;
            if (through < sealed) {
                sealed = through;
            }
        }
        long t = anyOpen ? sealed : NOW;
        return t > since ? t : since;
    }

    @Test
    void theTimeChosenMatchesTheModel() {
        Random random = new Random(14);
        for (int round = 0; round < 2000; round++) {
            List<IndexState> inputs = new ArrayList<>();
            int n = 1 + random.nextInt(3);
            for (int i = 0; i < n; i++) {
                long asOf = random.nextInt(100);
                Long upper = random.nextInt(8) == 0 ? null : asOf + random.nextInt(50);
                long since = random.nextBoolean() ? asOf : asOf + random.nextInt(60);
                inputs.add(index(i, asOf, upper, since));
            }
            boolean strict = random.nextBoolean();
            Long asOf = random.nextInt(3) == 0 ? (long) random.nextInt(200) : null;
            Long want = expected(inputs, strict, asOf, storage.lastWriteTime());
            String at = "round " + round;
            if (want == null) {
                assertThatThrownBy(() -> policy.chooseTime(strict, asOf, inputs, List.of())).as(at).isInstanceOf(ControllerException.class)
                        .satisfies(e -> assertThat(((ControllerException) e).kind()).isEqualTo(ControllerException.Kind.BEFORE_SINCE));
            } else {
                assertThat(policy.chooseTime(strict, asOf, inputs, List.of())).as(at).isEqualTo(want);
            }
        }
    }

    @Test
    void aReadHoldsItsTimeOnEveryInputUntilReleasedAndARefusedOneHoldsNothing() {
        IndexState a = index(1, 10, 40L, 10);
        IndexState b = index(2, 20, 30L, 25);
        List<Runnable> releases = new ArrayList<>();
        long[] seen = {-1};
        long t = policy.hold(false, null, List.of(a, b), List.of(), releases, time -> seen[0] = time);
        assertThat(t).isEqualTo(29);
        assertThat(seen[0]).isEqualTo(29);
        assertThat(a.reads.holds.min()).isEqualTo(29);
        assertThat(b.reads.holds.min()).isEqualTo(29);
        releases.forEach(Runnable::run);
        assertThat(a.reads.holds.min()).isEqualTo(Long.MAX_VALUE);

        List<Runnable> refused = new ArrayList<>();
        assertThatThrownBy(() -> policy.hold(false, 5L, List.of(a, b), List.of(), refused, time -> { }))
                .isInstanceOf(ControllerException.class).hasMessage("as_of 5 is before the compaction frontier 25; read at 25 or later");
        assertThat(refused).isEmpty();
        assertThat(b.reads.holds.min()).isEqualTo(Long.MAX_VALUE);

        ReadPolicy.Held one = policy.holdOne(b, false, 27L);
        assertThat(one.time()).isEqualTo(27);
        assertThat(b.reads.holds.min()).isEqualTo(27);
        one.release().run();
        assertThat(b.reads.holds.min()).isEqualTo(Long.MAX_VALUE);
    }
}
