package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** An uncaught error on either runtime's threads halts the whole process with a non-zero exit. */
class SharedFateTest {

    static Process child(String target) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), SharedFateChild.class.getName(), target))
                .redirectErrorStream(true).start();
    }

    @ParameterizedTest
    @ValueSource(strings = {"maintenance", "interactive"})
    void anUncaughtErrorOnARuntimeHaltsTheProcess(String runtime) throws Exception {
        Process p = child(runtime);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("the child exits by itself").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isEqualTo(70);
        assertThat(out).contains("started").contains("FATAL: uncaught error on tandem-" + runtime)
                .contains("injected failure").doesNotContain("still alive");
    }

    @org.junit.jupiter.api.Test
    void withoutAnErrorTheProcessLives() throws Exception {
        Process p = child("none");
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("still alive");
    }

    @Test
    void sharedFateLastsAsLongAsItsLastInstallation() {
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        List<String> fatal = new ArrayList<>();
        SharedFate.Installation first = SharedFate.install((where, e) -> fatal.add(where));
        SharedFate.Installation second = SharedFate.install((where, e) -> fatal.add(where));
        try {
            Thread.getDefaultUncaughtExceptionHandler().uncaughtException(Thread.currentThread(), new IllegalStateException("boom"));
            assertThat(fatal).hasSize(1);
            first.close();
            first.close();
            assertThat(Thread.getDefaultUncaughtExceptionHandler()).as("another application still runs").isNotSameAs(before);
        } finally {
            second.close();
        }
        assertThat(Thread.getDefaultUncaughtExceptionHandler()).as("the JVM's own handler is back").isSameAs(before);
    }
}
