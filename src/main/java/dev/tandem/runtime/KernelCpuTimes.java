package dev.tandem.runtime;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * CPU times from Linux's {@code /proc/self/task/<tid>/schedstat} (nanoseconds on a CPU, then nanoseconds
 * runnable on a run queue): run and wait of the threads {@link ThreadNice} lowered (maintenance's), and run
 * of the threads that serve reads, found by name ({@link #READER_NAMES}: the network event loops and the
 * interactive runtime). Lowered threads register themselves; readers are looked up again every
 * {@link #READER_REFRESH} samples, as event loops are created lazily. A thread that has ended drops out, and
 * its times with it (the reserve works on differences, and clamps a negative one to zero). The machine's run
 * time comes from {@code /proc/stat}: the busy time (all but idle and I/O wait) of the processors this
 * process may run on ({@code Cpus_allowed_list} of {@code /proc/self/status}), which the kernel counts in
 * clock ticks of a hundredth of a second ({@code USER_HZ}, 100 on every Linux architecture Java runs on).
 */
public final class KernelCpuTimes implements Supplier<MaintenanceReserve.Sample> {

    /** Prefixes of the kernel's (15-character) names of the threads that serve reads. */
    static final List<String> READER_NAMES = List.of("reactor-http-", "reactor-tcp-", "tandem-interact");
    static final int READER_REFRESH = 40;

    private static final Set<Long> LOWERED = ConcurrentHashMap.newKeySet();

    /** Nanoseconds in one of {@code /proc/stat}'s clock ticks ({@code USER_HZ} = 100). */
    static final long NANOS_PER_CLOCK_TICK = 10_000_000;

    private final Map<Long, FileChannel> open = new HashMap<>();
    private final ByteBuffer buffer = ByteBuffer.allocate(128);
    private final java.util.BitSet cpus = allowedCpus();
    private final ByteBuffer statBuffer = ByteBuffer.allocate(1 << 16);
    private FileChannel stat;
    private List<Long> readers = List.of();
    private int samples;

    /** Notes the calling thread as lowered (Linux only; elsewhere nothing is measured). */
    static void registerCurrentThread() {
        currentTid().ifPresent(LOWERED::add);
    }

    /** Whether run and wait times can be read on this platform. */
    public static boolean available() {
        return Files.isReadable(Path.of("/proc/thread-self/schedstat"));
    }

    @Override
    public synchronized MaintenanceReserve.Sample get() {
        if (samples++ % READER_REFRESH == 0) {
            List<Long> found = threadsNamed(READER_NAMES);
            readers.stream().filter(tid -> !found.contains(tid) && !LOWERED.contains(tid)).forEach(this::forget);
            readers = found;
        }
        long run = 0;
        long wait = 0;
        for (Long tid : LOWERED) {
            long[] t = schedstat(tid);
            if (t == null) {
                LOWERED.remove(tid);
                forget(tid);
            } else {
                run += t[0];
                wait += t[1];
            }
        }
        long readerRun = 0;
        for (Long tid : readers) {
            long[] t = schedstat(tid);
            readerRun += t == null ? 0 : t[0];
        }
        return new MaintenanceReserve.Sample(run, wait, readerRun, machineRun());
    }

    /** The busy nanoseconds of the processors this process may use, from {@code /proc/stat}; -1 when unknown. */
    private long machineRun() {
        if (cpus.isEmpty()) {
            return -1;
        }
        try {
            if (stat == null) {
                stat = FileChannel.open(Path.of("/proc/stat"), StandardOpenOption.READ);
            }
            statBuffer.clear();
            int n;
            while ((n = stat.read(statBuffer, statBuffer.position())) > 0 && statBuffer.hasRemaining()) {
                statBuffer.position(statBuffer.position() + n);
            }
            long ticks = busyClockTicks(new String(statBuffer.array(), 0, statBuffer.position(), java.nio.charset.StandardCharsets.US_ASCII), cpus);
            return ticks < 0 ? -1 : ticks * NANOS_PER_CLOCK_TICK;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * The busy clock ticks (user, nice, system, irq, softirq, steal: all but idle and I/O wait) of the
     * processors in {@code cpus}, summed from the {@code cpuN} lines of {@code /proc/stat}'s text; -1 if none
     * of them is there.
     */
    static long busyClockTicks(String procStat, java.util.BitSet cpus) {
        long busy = 0;
        boolean any = false;
        for (String line : procStat.split("\n")) {
            if (!line.startsWith("cpu") || line.length() < 4 || !Character.isDigit(line.charAt(3))) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            if (f.length < 9 || !cpus.get(Integer.parseInt(f[0].substring(3)))) {
                continue;
            }
            // user nice system idle iowait irq softirq steal
            busy += Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                    + Long.parseLong(f[7]) + Long.parseLong(f[8]);
            any = true;
        }
        return any ? busy : -1;
    }

    /** The processors this process may run on, from {@code /proc/self/status}; empty when unknown. */
    static java.util.BitSet allowedCpus() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return cpuList(line.substring(line.indexOf(':') + 1));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable: the machine's run time stays unknown
        }
        return new java.util.BitSet();
    }

    /** A kernel CPU list ({@code 0-3,8,10-11}) as a set. */
    static java.util.BitSet cpuList(String list) {
        java.util.BitSet set = new java.util.BitSet();
        for (String part : list.strip().split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int dash = part.indexOf('-');
            int from = Integer.parseInt(part.substring(0, dash < 0 ? part.length() : dash).strip());
            int to = dash < 0 ? from : Integer.parseInt(part.substring(dash + 1).strip());
            set.set(from, to + 1);
        }
        return set;
    }

    /**
     * Run and wait nanoseconds of thread {@code tid} of this process, or null if it has ended. The file stays
     * open between samples (the kernel writes it afresh for every read from its start), which keeps a
     * sample to one system call a thread.
     */
    private long[] schedstat(long tid) {
        FileChannel f = open.get(tid);
        try {
            if (f == null) {
                f = FileChannel.open(Path.of("/proc/self/task/" + tid + "/schedstat"), StandardOpenOption.READ);
                open.put(tid, f);
            }
            buffer.clear();
            f.read(buffer, 0);
            long run = 0;
            long wait = 0;
            int field = 0;
            for (int i = 0; i < buffer.position() && field < 2; i++) {
                byte c = buffer.get(i);
                if (c >= '0' && c <= '9') {
                    if (field == 0) {
                        run = run * 10 + (c - '0');
                    } else {
                        wait = wait * 10 + (c - '0');
                    }
                } else {
                    field++;
                }
            }
            return field < 1 ? null : new long[] {run, wait};
        } catch (IOException | RuntimeException e) {
            forget(tid);
            return null;
        }
    }

    private void forget(long tid) {
        FileChannel f = open.remove(tid);
        if (f != null) {
            try {
                f.close();
            } catch (IOException e) {
                // nothing held
            }
        }
    }

    /** The ids of this process's threads whose kernel names start with one of {@code prefixes}. */
    static List<Long> threadsNamed(List<String> prefixes) {
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String name = Files.readString(task.resolve("comm")).trim();
                    if (prefixes.stream().anyMatch(name::startsWith)) {
                        found.add(Long.parseLong(task.getFileName().toString()));
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        return found;
    }

    /** The kernel's id of the calling thread: the last part of {@code /proc/thread-self} ({@code <pid>/task/<tid>}). */
    static Optional<Long> currentTid() {
        try {
            return Optional.of(Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
