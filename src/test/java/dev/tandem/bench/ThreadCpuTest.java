package dev.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Per-thread CPU of a window, from procfs, grouped by name without numbering. */
class ThreadCpuTest {

    @Test
    void attributesAWindowsCpuToTheThreadGroupThatSpentIt() throws InterruptedException {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs procfs");
        long pid = ProcessHandle.current().pid();
        ThreadCpu window = ThreadCpu.start(pid);
        CountDownLatch burnt = new CountDownLatch(1);
        CountDownLatch read = new CountDownLatch(1);
        // a thread that ended is gone from procfs, so the burner lives until the window is read
        Thread burner = new Thread(() -> {
            burn();
            burnt.countDown();
            await(read);
        }, "cpu-burner-7");
        burner.start();
        ObjectNode groups = JsonNodeFactory.instance.objectNode();
        try {
            assertThat(burnt.await(30, TimeUnit.SECONDS)).isTrue();
            window.finish(pid, Map.of(), groups);
        } finally {
            read.countDown();
        }
        assertThat(groups.path("cpu-burner").asDouble()).as("groups: %s", groups).isGreaterThanOrEqualTo(0.03);
        assertThat(groups.properties()).allSatisfy(e -> assertThat(e.getValue().asDouble()).isPositive());
        assertThat(ThreadCpu.top(groups, 1)).startsWith(groups.properties().iterator().next().getKey() + " ");
    }

    @Test
    void fullNamesComeFromAThreadDump() {
        Map<Integer, String> names = ThreadCpu.names(List.of(
                "\"tandem-storage-acks\" #41 [14709] daemon prio=5 os_prio=0 cpu=14.1ms elapsed=110.03s tid=0x00007ff770209f50 nid=14709 waiting",
                "\"ZWorkerYoung#0\" os_prio=0 cpu=1.2ms elapsed=1s tid=0x1 nid=812 runnable",
                "   java.lang.Thread.State: WAITING (parking)"));
        assertThat(names).containsExactlyInAnyOrderEntriesOf(Map.of(14709, "tandem-storage-acks", 812, "ZWorkerYoung#0"));
        assertThat(ThreadCpu.names(null)).isEmpty();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Spins until this thread has used at least 50 ms of CPU (bounded by 20 s of wall time). */
    private static void burn() {
        var bean = ManagementFactory.getThreadMXBean();
        long deadline = System.nanoTime() + 20_000_000_000L;
        long x = 0;
        while (bean.getCurrentThreadCpuTime() < 50_000_000L && System.nanoTime() < deadline) {
            x += System.nanoTime() % 7;
        }
        if (x == 42) {
            System.out.print("");
        }
    }
}
