package dev.tandem.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.node.ObjectNode;

/**
 * CPU time per thread of a process, read from {@code /proc/<pid>/task/<tid>/stat} (user plus system
 * time, in clock ticks of 10 ms: {@code CLK_TCK} is 100 on Linux), so a window's CPU can be told by
 * who spent it: HTTP event loops, maintenance, the collector's threads, the JIT compiler, the client.
 * The kernel keeps only 15 characters of a thread's name; where a JVM's {@code jcmd Thread.print} is
 * at hand, its full names replace them. Threads are grouped by name without their numbers
 * ({@code reactor-http-epoll-3} and {@code -4} are one group). A thread that ended within the window
 * is gone from procfs and not counted. Empty where there is no procfs.
 */
final class ThreadCpu {

    private static final double SECONDS_PER_TICK = 0.01;
    private static final Pattern NUMBERING = Pattern.compile("[-#]?\\d+");
    private static final Pattern THREAD_LINE = Pattern.compile("^\"([^\"]+)\".* nid=(\\d+)");

    /** One thread's name (as the kernel keeps it) and its CPU ticks so far. */
    private record Sample(String name, long ticks) {
    }

    private final Map<Integer, Sample> start;

    private ThreadCpu(Map<Integer, Sample> start) {
        this.start = start;
    }

    /** Starts a window over process {@code pid}'s threads. */
    static ThreadCpu start(long pid) {
        return new ThreadCpu(read(pid));
    }

    /**
     * Ends the window: writes into {@code target} the CPU seconds each thread group spent in it, largest
     * first (threads started within the window count from zero); {@code names} maps thread ids to full
     * names where known.
     */
    void finish(long pid, Map<Integer, String> names, ObjectNode target) {
        Map<String, Long> byGroup = new HashMap<>();
        read(pid).forEach((tid, now) -> {
            Sample before = start.get(tid);
            long spent = now.ticks() - (before == null ? 0 : before.ticks());
            if (spent > 0) {
                String name = names.getOrDefault(tid, now.name());
                byGroup.merge(NUMBERING.matcher(name).replaceAll(""), spent, Long::sum);
            }
        });
        Map<String, Long> sorted = new LinkedHashMap<>();
        byGroup.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        sorted.forEach((group, ticks) -> target.put(group, LatencySummary.round(ticks * SECONDS_PER_TICK)));
    }

    /** The first {@code n} groups of a {@link #finish} object, as {@code "group seconds, ..."}. */
    static String top(ObjectNode groups, int n) {
        StringBuilder out = new StringBuilder();
        groups.properties().stream().limit(n).forEach(e -> out.append(out.isEmpty() ? "" : ", ").append(e.getKey()).append(' ')
                .append(e.getValue().asDouble()));
        return out.toString();
    }

    /** Thread id to full thread name, from the lines of {@code jcmd <pid> Thread.print} (null or empty: none). */
    static Map<Integer, String> names(List<String> threadDump) {
        Map<Integer, String> names = new HashMap<>();
        if (threadDump != null) {
            for (String line : threadDump) {
                Matcher m = THREAD_LINE.matcher(line);
                if (m.find()) {
                    names.put(Integer.parseInt(m.group(2)), m.group(1));
                }
            }
        }
        return names;
    }

    private static Map<Integer, Sample> read(long pid) {
        Map<Integer, Sample> samples = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                Sample s = sample(task);
                if (s != null) {
                    samples.put(Integer.parseInt(task.getFileName().toString()), s);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no procfs, or the process is gone: nothing to attribute
        }
        return samples;
    }

    /** A thread's name and utime + stime; null when it ended while being read. */
    private static Sample sample(Path task) {
        try {
            String stat = Files.readString(task.resolve("stat"));
            int open = stat.indexOf('(');
            int close = stat.lastIndexOf(')');
            // fields after the name: state is the first; utime and stime are the 12th and 13th
            String[] f = stat.substring(close + 2).split(" ");
            return new Sample(stat.substring(open + 1, close), Long.parseLong(f[11]) + Long.parseLong(f[12]));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
