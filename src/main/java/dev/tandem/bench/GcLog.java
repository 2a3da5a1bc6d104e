package dev.tandem.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.node.ObjectNode;

/**
 * A child server's GC log ({@code -Xlog:gc,gc+phases}, see {@link ChildJvm}) read between two offsets:
 * its stop-the-world pauses and its allocation stalls. Every collector logs a pause as a line with
 * {@code Pause <kind>} ending in milliseconds: G1 {@code Pause Young (Normal) (G1 Evacuation Pause)
 * 15M->4M(64M) 14.380ms}, {@code Pause Remark}, {@code Pause Cleanup}, {@code Pause Full (…)}; Serial and
 * Parallel {@code Pause Young}/{@code Pause Full}; generational ZGC, under {@code gc+phases},
 * {@code Y: Pause Mark Start (Major) 0.028ms}, {@code Pause Mark End}, {@code Pause Relocate Start}
 * (sub-millisecond, for young and old). What hurts under ZGC is instead a thread waiting for memory,
 * logged {@code Allocation Stall (<thread>) 4.985ms}; these are counted apart. Concurrent phases
 * ({@code Concurrent Mark Cycle 90.292ms}, {@code Major Collection … 0.020s}) are not pauses.
 */
final class GcLog {

    private static final Pattern PAUSE = Pattern.compile("\\bPause ([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*)\\b.*?(\\d+(?:\\.\\d+)?)ms\\s*$");
    private static final Pattern STALL = Pattern.compile("\\bAllocation Stall \\(.*\\) (\\d+(?:\\.\\d+)?)ms\\s*$");
    private static final Pattern USING = Pattern.compile("\\[gc\\s*\\] Using (.+)$");

    private final Path file;

    GcLog(Path file) {
        this.file = file;
    }

    /** The log's length in bytes now: the start of a window. */
    long offset() {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The collector the child announced at start-up ({@code G1}, {@code The Z Garbage Collector}, …), or null. */
    String collector() {
        for (String line : lines(0)) {
            Matcher m = USING.matcher(line);
            if (m.find()) {
                return m.group(1).trim();
            }
        }
        return null;
    }

    /** The pauses and stalls logged from {@code offset} to now (complete lines only). */
    Pauses since(long offset) {
        return parse(lines(offset));
    }

    private List<String> lines(long offset) {
        if (!Files.exists(file)) {
            return List.of();
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long end = ch.size();
            if (end <= offset) {
                return List.of();
            }
            ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact(end - offset));
            while (buf.hasRemaining() && ch.read(buf, offset + buf.position()) > 0) {
                // read to the end seen
            }
            String text = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
            int lastNewline = text.lastIndexOf('\n');
            return lastNewline < 0 ? List.of() : text.substring(0, lastNewline).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Counts the pauses (by kind) and stalls in GC log lines. */
    static Pauses parse(List<String> lines) {
        Map<String, Stat> kinds = new TreeMap<>();
        Stat all = new Stat();
        Stat stalls = new Stat();
        for (String line : lines) {
            Matcher s = STALL.matcher(line);
            if (s.find()) {
                stalls.add(Double.parseDouble(s.group(1)));
                continue;
            }
            Matcher p = PAUSE.matcher(line);
            if (p.find()) {
                double ms = Double.parseDouble(p.group(2));
                all.add(ms);
                kinds.computeIfAbsent(p.group(1), k -> new Stat()).add(ms);
            }
        }
        return new Pauses(all, kinds, stalls);
    }

    /** A count, total and maximum of durations in milliseconds. */
    static final class Stat {
        long count;
        double totalMs;
        double maxMs;

        void add(double ms) {
            count++;
            totalMs += ms;
            maxMs = Math.max(maxMs, ms);
        }
    }

    /** The pauses of a window, in all and by kind ({@code Young}, {@code Full}, {@code Mark Start}, …), and the allocation stalls. */
    record Pauses(Stat all, Map<String, Stat> kinds, Stat stalls) {

        /** Writes {@code pauses}, {@code pause_total_ms}, {@code pause_max_ms}, {@code pause_kinds}, {@code allocation_stalls…}. */
        void writeTo(ObjectNode gc) {
            gc.put("pauses", all.count);
            gc.put("pause_total_ms", LatencySummary.round(all.totalMs));
            gc.put("pause_max_ms", LatencySummary.round(all.maxMs));
            ObjectNode byKind = gc.putObject("pause_kinds");
            kinds.forEach((kind, st) -> {
                ObjectNode k = byKind.putObject(kind);
                k.put("count", st.count);
                k.put("total_ms", LatencySummary.round(st.totalMs));
                k.put("max_ms", LatencySummary.round(st.maxMs));
            });
            gc.put("allocation_stalls", stalls.count);
            gc.put("allocation_stall_total_ms", LatencySummary.round(stalls.totalMs));
            gc.put("allocation_stall_max_ms", LatencySummary.round(stalls.maxMs));
        }
    }
}
