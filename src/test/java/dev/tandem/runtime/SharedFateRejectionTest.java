package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.Exceptions;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Shared fate answers an error escaping a scheduled task, except Reactor's rejection by a scheduler
 * already disposed (a task of a component that is closing), which is only logged.
 */
class SharedFateRejectionTest {

    @Test
    void aRejectionByADisposedSchedulerIsNotFatalAndOtherErrorsAre() throws Exception {
        List<String> fatal = new CopyOnWriteArrayList<>();
        Scheduler scheduler = Schedulers.newSingle("shared-fate-test");
        try (SharedFate.Installation installed = SharedFate.install((where, error) -> fatal.add(error.getMessage()))) {
            CountDownLatch ran = new CountDownLatch(2);
            scheduler.schedule(() -> {
                ran.countDown();
                throw Exceptions.failWithRejected();
            });
            scheduler.schedule(() -> {
                ran.countDown();
                throw new IllegalStateException("a bug");
            });
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (fatal.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            // both tasks ran on one thread in order: the bug's report came after the rejection was handled
            assertThat(fatal).containsExactly("a bug");
        } finally {
            scheduler.dispose();
        }
    }
}
