package dev.tandem.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The run and wait times of the threads {@link ThreadNice} lowered (maintenance's), from Linux's
 * {@code /proc/self/task/<tid>/schedstat}: nanoseconds on a CPU, then nanoseconds runnable on a run queue.
 * Threads register themselves when lowered; one that has ended drops out, and its times with it (the
 * reserve works on differences, and clamps a negative one to zero).
 */
public final class KernelRunWait implements Supplier<MaintenanceReserve.RunWait> {

    private static final Set<Long> LOWERED = ConcurrentHashMap.newKeySet();

    /** Notes the calling thread as lowered (Linux only; elsewhere nothing is measured). */
    static void registerCurrentThread() {
        currentTid().ifPresent(LOWERED::add);
    }

    /** Whether run and wait times can be read on this platform. */
    public static boolean available() {
        return Files.isReadable(Path.of("/proc/thread-self/schedstat"));
    }

    @Override
    public MaintenanceReserve.RunWait get() {
        long run = 0;
        long wait = 0;
        for (Long tid : LOWERED) {
            try {
                String[] f = Files.readString(Path.of("/proc/self/task/" + tid + "/schedstat")).trim().split(" ");
                run += Long.parseLong(f[0]);
                wait += Long.parseLong(f[1]);
            } catch (IOException | RuntimeException e) {
                LOWERED.remove(tid);
            }
        }
        return new MaintenanceReserve.RunWait(run, wait);
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
