package dev.tandem.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The results of one scenario: the stable JSON {@code {"scenario","settings","arms":{"two_runtime",
 * "solo"},"ratios"}} and its Markdown rendering (a latency table, any extra tables, each arm's GC and
 * memory, the ratios).
 */
final class BenchReport {

    static final String TWO_RUNTIME = "two_runtime";
    static final String SOLO = "solo";

    private final ObjectNode root = JsonNodeFactory.instance.objectNode();
    private final ObjectNode settings;
    private final ObjectNode arms;
    private final ObjectNode ratios;
    private final List<String> latencyRows = new ArrayList<>();
    private final List<String> extra = new ArrayList<>();

    BenchReport(String scenario) {
        root.put("scenario", scenario);
        settings = root.putObject("settings");
        arms = root.putObject("arms");
        ratios = root.putObject("ratios");
    }

    ObjectNode settings() {
        return settings;
    }

    /** The JSON object of an arm, created on first use. */
    ObjectNode arm(String name) {
        return arms.has(name) ? (ObjectNode) arms.get(name) : arms.putObject(name);
    }

    /** The results of arm {@code name}, or an empty object (not in the report) when it did not run ({@code --arm}). */
    ObjectNode measured(String name) {
        return arms.has(name) ? (ObjectNode) arms.get(name) : arms.objectNode();
    }

    ObjectNode ratios() {
        return ratios;
    }

    ObjectNode json() {
        return root;
    }

    /** Adds a row to the Markdown latency table. */
    void row(String label, LatencySummary s) {
        latencyRows.add("| " + label + " | " + s.count() + " | " + fmt(s.rate(), 1) + " | " + ms(s.p50Ms()) + " | " + ms(s.p95Ms())
                + " | " + ms(s.p99Ms()) + " | " + ms(s.p999Ms()) + " | " + ms(s.maxMs()) + " | " + ms(s.slopeMsPerS()) + " | "
                + s.errors() + " | " + s.timeouts() + " | " + s.incomplete() + " |");
    }

    /** Adds Markdown lines after the latency table. */
    void extra(String line) {
        extra.add(line);
    }

    /** Sets a ratio {@code a / b}, or null when either is missing or {@code b} is zero. */
    void ratio(String name, Double a, Double b) {
        LatencySummary.put(ratios, name, a == null || b == null || b == 0 ? null : a / b);
    }

    void print(PrintStream out) {
        out.println();
        out.println("## " + root.path("scenario").asString());
        out.println();
        out.println("settings: " + settings);
        if (!latencyRows.isEmpty()) {
            out.println();
            out.println("| arm | count | rate/s | p50 ms | p95 ms | p99 ms | p99.9 ms | max ms | slope ms/s | errors | timeouts | incomplete |");
            out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
            latencyRows.forEach(out::println);
        }
        if (!extra.isEmpty()) {
            out.println();
            extra.forEach(out::println);
        }
        printResources(out);
        if (!ratios.isEmpty()) {
            out.println();
            out.println("| ratio | value |");
            out.println("| --- | ---: |");
            ratios.properties().forEach(e -> out.println("| " + e.getKey() + " | "
                    + (e.getValue().isNull() ? "—" : fmt(e.getValue().asDouble(), 2)) + " |"));
        }
        out.println();
    }

    /** The table of each arm's {@code gc} (over its measured window) and {@code memory} (at rest). */
    private void printResources(PrintStream out) {
        out.println();
        out.println("| arm | collector | window s | GC pauses | pause total ms | pause max ms | alloc stalls | stall total ms"
                + " | alloc MB/s | heap MB at rest | heap B/row | RSS MB at rest | RSS B/row |");
        out.println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        arms.properties().forEach(e -> {
            JsonNode gc = e.getValue().path("gc");
            JsonNode m = e.getValue().path("memory");
            out.println("| " + e.getKey() + " | " + (gc.path("collector").isString() ? gc.path("collector").asString() : "—") + " | "
                    + num(gc.path("window_s"), 1) + " | " + num(gc.path("pauses"), 0) + " | " + num(gc.path("pause_total_ms"), 1) + " | "
                    + num(gc.path("pause_max_ms"), 1) + " | " + num(gc.path("allocation_stalls"), 0) + " | "
                    + num(gc.path("allocation_stall_total_ms"), 1) + " | " + mbPerS(gc.path("allocation_rate_bytes_per_s")) + " | "
                    + mb(m.path("heap_bytes")) + " | " + num(m.path("heap_bytes_per_row"), 1) + " | " + mb(m.path("rss_bytes")) + " | "
                    + num(m.path("rss_bytes_per_row"), 1) + " |");
        });
    }

    /** A number with {@code decimals}, or an em dash when it is missing or null. */
    static String num(JsonNode v, int decimals) {
        return v.isNumber() ? fmt(v.asDouble(), decimals) : "—";
    }

    /** Bytes in MiB with one decimal, or an em dash. */
    static String mb(JsonNode bytes) {
        return bytes.isNumber() ? fmt(bytes.asDouble() / (1024 * 1024), 1) : "—";
    }

    private static String mbPerS(JsonNode bytesPerS) {
        return bytesPerS.isNumber() ? fmt(bytesPerS.asDouble() / 1e6, 1) : "—";
    }

    void write(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, BenchHttp.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A latency in milliseconds for the table, or an em dash when it is not reported. */
    static String ms(Double v) {
        return v == null ? "—" : fmt(v, Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
    }

    static String fmt(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
