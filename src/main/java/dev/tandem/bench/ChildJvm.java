package dev.tandem.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The JVM options of the bench's child servers, in one place: the heap (sized from the rows unless
 * {@code --heap-mb} says), {@link #DEFAULT_OPTIONS} (the collector and its tuning), then each
 * {@code --jvm-arg}, which replaces a default of the same option (a {@code -XX:+UseZGC} replaces the
 * default collector), and last the GC log that {@link GcLog} reads.
 */
final class ChildJvm {

    /**
     * The child servers' JVM options besides the heap's maximum and the GC log: those {@code bin/dev server}
     * runs with, from the one list both read ({@code jvm.options}: generational ZGC, a soft maximum heap, a
     * short uncommit delay), so the bench measures the memory a user's server keeps. Recorded in each
     * result's {@code settings.child_jvm_options}; a {@code --jvm-arg -XX:+UseG1GC} measures G1 instead.
     */
    static final List<String> DEFAULT_OPTIONS = shipped();

    private static List<String> shipped() {
        try (var in = ChildJvm.class.getResourceAsStream("/jvm.options")) {
            if (in == null) {
                throw new IllegalStateException("jvm.options is not on the class path");
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines()
                    .map(String::strip).filter(l -> !l.isEmpty()).toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The GC log's selection: pauses and stalls at info level ({@code gc+phases} holds ZGC's pauses), never rotated. */
    private static final String GC_LOG_SELECTION = "gc,gc+phases";

    private ChildJvm() {
    }

    /** The heap of a child holding {@code rows} rows: about 2.5 KB a row, between 1 and 8 GB. */
    static int heapMbFor(long rows) {
        return (int) Math.max(1024, Math.min(8192, 512 + rows * 2500 / (1024 * 1024)));
    }

    /**
     * The options of a child with a heap of at most {@code heapMb}, {@code extra} options and its GC log at
     * {@code gcLog}. The heap starts small and grows as the server's does (no {@code -Xms}, so memory it
     * no longer needs is given back); a soft maximum over {@code heapMb} is lowered to it (the JVM refuses one above).
     */
    static List<String> options(int heapMb, List<String> extra, Path gcLog) {
        Set<String> replaced = new LinkedHashSet<>();
        extra.forEach(x -> replaced.add(key(x)));
        List<String> out = new ArrayList<>();
        List<String> defaults = new ArrayList<>();
        defaults.add("-Xmx" + heapMb + "m");
        for (String d : DEFAULT_OPTIONS) {
            defaults.add(key(d).equals("-XX:SoftMaxHeapSize") && megabytes(d.substring(d.indexOf('=') + 1)) > heapMb
                    ? "-XX:SoftMaxHeapSize=" + heapMb + "m" : d);
        }
        for (String d : defaults) {
            if (!replaced.contains(key(d))) {
                out.add(d);
            }
        }
        out.addAll(extra);
        out.add("-Xlog:" + GC_LOG_SELECTION + ":file=" + gcLog + ":uptime,level,tags:filecount=0");
        return out;
    }

    /** A JVM size ({@code 2g}, {@code 512m}, {@code 1048576}) in megabytes. */
    static long megabytes(String size) {
        String s = size.strip().toLowerCase(java.util.Locale.ROOT);
        long unit = switch (s.charAt(s.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            case 't' -> 1L << 40;
            default -> 1;
        };
        String digits = unit == 1 ? s : s.substring(0, s.length() - 1);
        return Long.parseLong(digits) * unit >> 20;
    }

    /**
     * What an option sets, so a later one can replace it: {@code gc} for a collector choice, the flag's
     * name for {@code -XX:} and {@code -D} options, the prefix for {@code -Xms}-like sizes, else the
     * option itself.
     */
    static String key(String option) {
        if (option.matches("-XX:[+-]Use\\w*GC")) {
            return "gc";
        }
        if (option.startsWith("-XX:")) {
            String name = option.substring(4).replaceFirst("^[+-]", "");
            int eq = name.indexOf('=');
            return "-XX:" + (eq >= 0 ? name.substring(0, eq) : name);
        }
        if (option.startsWith("-D")) {
            int eq = option.indexOf('=');
            return eq >= 0 ? option.substring(0, eq) : option;
        }
        if (option.matches("-X(ms|mx|mn|ss)\\S*")) {
            return option.substring(0, 4);
        }
        return option;
    }
}
