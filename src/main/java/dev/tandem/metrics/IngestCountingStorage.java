package dev.tandem.metrics;

import dev.tandem.row.Schema;
import dev.tandem.storage.CatalogSwap;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.StorageStats;
import dev.tandem.storage.TableEvent;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.UniqueKey;
import dev.tandem.time.Frontier;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link TableStorage} that counts the updates of each write once it is durable. (The storage's own
 * {@code stats().records()} counts log records — one per write, table or catalog change — not rows.)
 */
final class IngestCountingStorage implements TableStorage {

    private final TableStorage delegate;
    private final LongAdder ingested = new LongAdder();

    private IngestCountingStorage(TableStorage delegate) {
        this.delegate = delegate;
    }

    static TableStorage wrap(TableStorage delegate, MeterRegistry registry) {
        IngestCountingStorage storage = new IngestCountingStorage(delegate);
        FunctionCounter.builder(TandemMeters.INGESTED_UPDATES, storage.ingested, LongAdder::sum)
                .description("Updates (row, diff) written durably through storage")
                .register(registry);
        return storage;
    }

    @Override
    public Mono<Long> write(String id, List<RowDiff> updates) {
        Mono<Long> result = delegate.write(id, updates);
        int n = updates.size();
        // The write is submitted already; this subscription only observes its outcome (failures are the caller's).
        result.subscribe(t -> ingested.add(n), e -> { });
        return result;
    }

    @Override
    public Mono<Long> write(String id, List<RowDiff> updates, CatalogSwap swap) {
        Mono<Long> result = delegate.write(id, updates, swap);
        int n = updates.size();
        result.subscribe(t -> ingested.add(n), e -> { });
        return result;
    }

    @Override
    public Mono<Long> writeTables(Map<String, List<RowDiff>> updates, CatalogSwap swap) {
        return counted(delegate.writeTables(updates, swap), updates);
    }

    @Override
    public Mono<Long> writeTablesKeysGuaranteed(Map<String, List<RowDiff>> updates, CatalogSwap swap) {
        return counted(delegate.writeTablesKeysGuaranteed(updates, swap), updates);
    }

    private Mono<Long> counted(Mono<Long> result, Map<String, List<RowDiff>> updates) {
        long n = updates.values().stream().mapToLong(List::size).sum();
        result.subscribe(t -> ingested.add(n), e -> { });
        return result;
    }

    @Override
    public void createTable(String id, Schema schema, List<UniqueKey> keys) {
        delegate.createTable(id, schema, keys);
    }

    @Override
    public List<UniqueKey> keys(String id) {
        return delegate.keys(id);
    }

    @Override
    public void dropTable(String id) {
        delegate.dropTable(id);
    }

    @Override
    public void addKey(String id, UniqueKey key, CatalogSwap swap) {
        delegate.addKey(id, key, swap);
    }

    @Override
    public void dropKey(String id, String name, CatalogSwap swap) {
        delegate.dropKey(id, name, swap);
    }

    @Override
    public Schema schema(String id) {
        return delegate.schema(id);
    }

    @Override
    public List<String> tables() {
        return delegate.tables();
    }

    @Override
    public Flux<TableEvent> subscribe(String id, long asOf) {
        return delegate.subscribe(id, asOf);
    }

    @Override
    public Frontier upper(String id) {
        return delegate.upper(id);
    }

    @Override
    public Frontier since(String id) {
        return delegate.since(id);
    }

    @Override
    public long records(String id) {
        return delegate.records(id);
    }

    @Override
    public java.util.Map<dev.tandem.row.Row, Long> rowsWithKey(String id, dev.tandem.row.Row key) {
        return delegate.rowsWithKey(id, key);
    }

    @Override
    public void allowCompaction(String id, Frontier since) {
        delegate.allowCompaction(id, since);
    }

    @Override
    public long lastWriteTime() {
        return delegate.lastWriteTime();
    }

    @Override
    public void putCatalogEntry(String key, String json) {
        delegate.putCatalogEntry(key, json);
    }

    @Override
    public void removeCatalogEntry(String key) {
        delegate.removeCatalogEntry(key);
    }

    @Override
    public void changeCatalog(CatalogSwap swap) {
        delegate.changeCatalog(swap);
    }

    @Override
    public void watchDefinitions(Runnable changed) {
        delegate.watchDefinitions(changed);
    }

    @Override
    public Map<String, String> catalogEntries() {
        return delegate.catalogEntries();
    }

    @Override
    public void compact() {
        delegate.compact();
    }

    @Override
    public StorageStats stats() {
        return delegate.stats();
    }

    @Override
    public String unavailable() {
        return delegate.unavailable();
    }

    @Override
    public java.util.List<dev.tandem.storage.StorageError> errors() {
        return delegate.errors();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
