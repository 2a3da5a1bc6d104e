package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * No blocking call ever runs on the interactive runtime's non-blocking threads during a workload of
 * peeks. BlockHound runs in a child JVM (it instruments the whole JVM, and needs a JVM flag), and a
 * control run with one deliberate blocking call shows the check is live.
 */
class BlockHoundTest {

    static String run(String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new java.util.ArrayList<>(List.of(java, "-XX:+AllowRedefinitionToAddDeleteMethods", "-Dnet.bytebuddy.experimental=true",
                "-cp", System.getProperty("java.class.path"), BlockHoundChild.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    @Test
    void peeksNeverBlockTheInteractiveThreads() throws Exception {
        String out = run();
        assertThat(out).as(out).contains("answered=2000 rows=2000 blocking=0 complete=true");
    }

    @Test
    void aDeliberateBlockingCallIsCaught() throws Exception {
        String out = run("control");
        assertThat(out).as(out).contains("BLOCKING jdk.internal.misc.Unsafe#park on tandem-interactive");
    }
}
