package dev.tandem.metrics;

import dev.tandem.source.SourceListener;
import dev.tandem.source.SourceManager;
import dev.tandem.source.SourceStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/** Meters of each Kafka source, tagged {@code source}: registered when it starts, removed when it stops. */
public final class SourceMeters implements SourceListener {

    /** Gauge: records in the topic not yet ingested (end offsets less next offsets); NaN until known. */
    public static final String LAG = "tandem.source.lag";
    /** Counter: records ingested. */
    public static final String RECORDS = "tandem.source.records";
    /** Counter: records refused into the source's error collection. */
    public static final String ERRORS = "tandem.source.errors";
    /** Gauge: 1 on the replica that ingests the source, 0 on replicas standing by. */
    public static final String INGESTING = "tandem.source.ingesting";
    /** Counter: records this replica decoded (on replicas standing by it stays still). */
    public static final String DECODED = "tandem.source.decoded";

    private final MeterRegistry registry;
    private final Map<String, List<Meter>> meters = new ConcurrentHashMap<>();
    private volatile SourceManager sources;

    public SourceMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The manager whose sources the meters read (sources started before this read nothing until then). */
    public void bind(SourceManager sources) {
        this.sources = sources;
    }

    @Override
    public void started(String name) {
        stopped(name);
        meters.put(name, List.of(
                Gauge.builder(LAG, this, m -> m.read(name, s -> s.lag() < 0 ? Double.NaN : s.lag()))
                        .tag("source", name).description("Records in the source's topic not yet ingested").register(registry),
                FunctionCounter.builder(RECORDS, this, m -> m.read(name, SourceStatus::records))
                        .tag("source", name).description("Records the source ingested").register(registry),
                FunctionCounter.builder(ERRORS, this, m -> m.read(name, SourceStatus::errors))
                        .tag("source", name).description("Records the source refused into its error collection").register(registry),
                Gauge.builder(INGESTING, this, m -> m.read(name, s -> s.ingesting() ? 1 : 0))
                        .tag("source", name).description("1 if this replica ingests the source, 0 if it stands by").register(registry),
                FunctionCounter.builder(DECODED, this, m -> m.read(name, SourceStatus::decoded))
                        .tag("source", name).description("Records this replica decoded from the source's topic").register(registry)));
    }

    @Override
    public void stopped(String name) {
        List<Meter> old = meters.remove(name);
        if (old != null) {
            old.forEach(registry::remove);
        }
    }

    private double read(String name, ToDoubleFunction<SourceStatus> value) {
        SourceManager m = sources;
        if (m == null) {
            return Double.NaN;
        }
        try {
            return value.applyAsDouble(m.status(name));
        } catch (RuntimeException e) {
            return Double.NaN;
        }
    }
}
