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
     * The child servers' JVM options besides the heap size and the GC log: the collector and its
     * tuning, as {@code bin/dev server} and the Helm chart run it: generational ZGC (the only ZGC from
     * JDK 23 on, and Tandem needs JDK 25). Recorded in each result's {@code settings.child_jvm_options}; a
     * {@code --jvm-arg -XX:+UseG1GC} measures G1 instead.
     */
    static final List<String> DEFAULT_OPTIONS = List.of("-XX:+UseZGC");

    /** The GC log's selection: pauses and stalls at info level ({@code gc+phases} holds ZGC's pauses), never rotated. */
    private static final String GC_LOG_SELECTION = "gc,gc+phases";

    private ChildJvm() {
    }

    /** The heap of a child holding {@code rows} rows: about 2.5 KB a row, between 1 and 8 GB. */
    static int heapMbFor(long rows) {
        return (int) Math.max(1024, Math.min(8192, 512 + rows * 2500 / (1024 * 1024)));
    }

    /** The options of a child with a {@code heapMb} heap, {@code extra} options and its GC log at {@code gcLog}. */
    static List<String> options(int heapMb, List<String> extra, Path gcLog) {
        Set<String> replaced = new LinkedHashSet<>();
        extra.forEach(x -> replaced.add(key(x)));
        List<String> out = new ArrayList<>();
        List<String> defaults = new ArrayList<>();
        defaults.add("-Xms" + heapMb + "m");
        defaults.add("-Xmx" + heapMb + "m");
        defaults.addAll(DEFAULT_OPTIONS);
        for (String d : defaults) {
            if (!replaced.contains(key(d))) {
                out.add(d);
            }
        }
        out.addAll(extra);
        out.add("-Xlog:" + GC_LOG_SELECTION + ":file=" + gcLog + ":uptime,level,tags:filecount=0");
        return out;
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
