package dev.tandem.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * No blocking call runs on the interactive runtime's non-blocking threads while change streams are
 * served. BlockHound runs in a child JVM (it instruments the whole JVM and needs a JVM flag); a
 * control subscriber that parks on those threads, after the workload, shows the check is live.
 */
class StreamBlockHoundTest {

    static String run(String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-XX:+AllowRedefinitionToAddDeleteMethods", "-Dnet.bytebuddy.experimental=true",
                "-cp", System.getProperty("java.class.path"), StreamBlockHoundChild.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    @Test
    void streamingNeverBlocksTheInteractiveThreadsAndABlockingSubscriberIsCaught() throws Exception {
        String out = run();
        assertThat(out).as(out).contains("streams=20 caught_up=20 blocking=0 messages_positive=true").doesNotContain("ENDED").doesNotContain("FATAL");
        assertThat(out).as(out).contains("control_caught=true").contains("BLOCKING jdk.internal.misc.Unsafe#park on tandem-interactive");
    }
}
