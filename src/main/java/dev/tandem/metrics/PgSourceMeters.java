package dev.tandem.metrics;

import dev.tandem.source.SourceListener;
import dev.tandem.source.postgres.PgSourceManager;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/** Meters of each PostgreSQL source, tagged {@code source}: registered when it starts, removed when it is dropped. */
public final class PgSourceMeters implements SourceListener {

    /** Gauge: seconds from the upstream commit of the last transaction applied to its application here; 0 when caught up. */
    public static final String LAG_SECONDS = "tandem.source.lag.seconds";
    /** Gauge: bytes of upstream WAL the server has sent or announced beyond the position the source has applied everything through. */
    public static final String BYTES_BEHIND = "tandem.source.wal.bytes.behind";
    /** Counter: upstream transactions applied. */
    public static final String TRANSACTIONS = "tandem.source.transactions";
    /** Gauge: tables of the source in an error state. */
    public static final String TABLE_ERRORS = "tandem.source.table.errors";
    /** Timer (with its median and 99th percentile): from an upstream transaction's commit to its arrival here. */
    public static final String RECEIVE = "tandem.source.receive";
    /** Timer (with its median and 99th percentile): from the arrival of a write's first upstream transaction to the write being durable. */
    public static final String WRITE = "tandem.source.write";

    private final MeterRegistry registry;
    private final Map<String, List<Meter>> meters = new ConcurrentHashMap<>();
    private final Map<String, Timer[]> stages = new ConcurrentHashMap<>();
    private volatile PgSourceManager sources;

    public PgSourceMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The manager whose sources the meters read. */
    public void bind(PgSourceManager sources) {
        this.sources = sources;
    }

    @Override
    public void started(String name) {
        stopped(name);
        meters.put(name, List.of(
                Gauge.builder(LAG_SECONDS, this, m -> m.read(name, PgSourceManager.Status::lagSeconds))
                        .tag("source", name).description("Seconds from the upstream commit of the last applied transaction to its application").register(registry),
                Gauge.builder(BYTES_BEHIND, this, m -> m.read(name, s -> s.bytesBehind()))
                        .tag("source", name).description("Bytes of upstream WAL beyond what the source has applied").register(registry),
                FunctionCounter.builder(TRANSACTIONS, this, m -> m.read(name, s -> s.transactions()))
                        .tag("source", name).description("Upstream transactions applied").register(registry),
                Gauge.builder(TABLE_ERRORS, this, m -> m.read(name, s -> s.tableErrors().size()))
                        .tag("source", name).description("Tables of the source in an error state").register(registry)));
        stages.put(name, new Timer[] {
            stage(RECEIVE, name, "From an upstream transaction's commit to its arrival"),
            stage(WRITE, name, "From the arrival of a write's first upstream transaction to the write being durable")});
    }

    private Timer stage(String meter, String source, String description) {
        return Timer.builder(meter).tag("source", source).description(description).publishPercentiles(0.5, 0.99).register(registry);
    }

    @Override
    public void received(String name, long micros) {
        Timer[] t = stages.get(name);
        if (t != null) {
            t[0].record(micros, TimeUnit.MICROSECONDS);
        }
    }

    @Override
    public void durable(String name, long micros) {
        Timer[] t = stages.get(name);
        if (t != null) {
            t[1].record(micros, TimeUnit.MICROSECONDS);
        }
    }

    @Override
    public void stopped(String name) {
        List<Meter> old = meters.remove(name);
        if (old != null) {
            old.forEach(registry::remove);
        }
        Timer[] timers = stages.remove(name);
        if (timers != null) {
            for (Timer t : timers) {
                registry.remove(t);
            }
        }
    }

    private double read(String name, ToDoubleFunction<PgSourceManager.Status> value) {
        PgSourceManager m = sources;
        PgSourceManager.Status s = m == null ? null : m.statusOrNull(name);
        return s == null ? Double.NaN : value.applyAsDouble(s);
    }
}
