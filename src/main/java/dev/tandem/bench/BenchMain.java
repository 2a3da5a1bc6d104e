package dev.tandem.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code java -jar tandem.jar bench <scenario> [options]}: Tandem's load generator. Each arm of a
 * scenario runs a Tandem server as a child process on loopback, loads it through the public API,
 * measures, and stops it; the results are printed as Markdown and written as JSON. Runs no server in
 * its own JVM. See {@link BenchOptions#USAGE} and {@code docs/BENCHMARKS.md}.
 */
public final class BenchMain {

    private static final long T0 = System.nanoTime();

    private BenchMain() {
    }

    /** A progress line on stderr, stamped with the seconds since start. */
    static void log(String format, Object... args) {
        System.err.printf("%7.1f s  %s%n", (System.nanoTime() - T0) / 1e9, String.format(format, args));
    }

    /** Runs a scenario and exits: 0 on success, 2 on a usage error, 1 on a failure. */
    public static void main(String[] args) {
        int code;
        try {
            run(System.out, args);
            code = 0;
        } catch (IllegalArgumentException e) {
            System.err.println("tandem bench: " + e.getMessage());
            System.err.println(BenchOptions.USAGE);
            code = 2;
        } catch (RuntimeException e) {
            System.err.println("tandem bench: failed: " + e.getMessage());
            e.printStackTrace();
            code = 1;
        }
        System.exit(code);
    }

    /** Runs a scenario, prints its Markdown to {@code out}, writes its JSON and returns it. */
    public static ObjectNode run(PrintStream out, String... args) {
        BenchOptions o = BenchOptions.parse(args);
        Instant started = Instant.now();
        BenchReport report = switch (o.scenario()) {
            case "read-isolation" -> IsolationScenario.run(o, false);
            case "introspection-under-hydration" -> IsolationScenario.run(o, true);
            case "maintenance-throughput" -> MaintenanceScenario.run(o);
            case "peek-throughput" -> PeekThroughputScenario.run(o);
            case "sql-point-lookup" -> SqlPointLookupScenario.run(o);
            case "memory" -> MemoryScenario.run(o);
            case "replicas" -> ReplicasScenario.run(o);
            case "subscribe-fanout" -> SubscribeFanoutScenario.run(o);
            case "pg-compare" -> PgCompareScenario.run(o);
            case "pg-source" -> PgSourceScenario.run(o);
            case "startup" -> StartupScenario.run(o);
            case "sql-shapes" -> SqlShapesScenario.run(o);
            default -> throw new IllegalArgumentException("unknown scenario '" + o.scenario() + "'");
        };
        ObjectNode settings = report.settings();
        settings.put("args", String.join(" ", Arrays.asList(args)));
        settings.put("started", started.toString());
        settings.put("finished", Instant.now().toString());
        settings.put("connections", o.connections());
        settings.put("probe_s", o.probe().toMillis() / 1000.0);
        settings.put("churn_loops", o.churnLoops());
        int heapMb = o.heapMbFor(settings.path("rows").asLong(settings.path("point_rows").asLong()));
        settings.put("child_heap_mb", heapMb);
        settings.put("child_jvm_args", String.join(" ", o.jvmArgs()));
        settings.put("child_jvm_options", String.join(" ",
                ChildJvm.options(heapMb, o.jvmArgs(), Path.of("<child dir>", ChildServer.GC_LOG))));
        settings.put("child_server_args", String.join(" ", o.serverArgs()));
        settings.put("child_launch", String.join(" ", ChildServer.launchTarget()).replaceAll("-cp \\S+", "-cp <class path>"));
        settings.put("http_client", "Reactor Netty HttpClient (non-blocking, keep-alive), bounded pool of "
                + BenchArm.LOAD_CONNECTIONS + " connections");
        settings.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        settings.put("processors", Runtime.getRuntime().availableProcessors());
        report.print(out);
        report.write(o.out());
        out.println("JSON written to " + o.out().toAbsolutePath());
        return report.json();
    }
}
