package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.EvalError;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.ComputeResponse.PeekResponse;
import dev.tandem.time.Frontier;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/** Each pending peek gets exactly one response, timed on the injected ticker and reported by its path. */
class PendingPeeksTest {

    private final List<ComputeResponse> emitted = new CopyOnWriteArrayList<>();
    private final List<String> observed = new CopyOnWriteArrayList<>();
    private final AtomicLong ticker = new AtomicLong(1_000);
    private final PendingPeeks peeks = new PendingPeeks(Role.INTERACTIVE, ticker::get, new RuntimeObserver() {
        @Override
        public void peekCompleted(Role role, ReadPath path, String outcome, long nanos) {
            observed.add(role.tag() + " " + path.tag() + " " + outcome + " " + nanos);
        }
    }, emitted::add);

    private static ComputeResponse.Rows rows() {
        return new ComputeResponse.Rows(List.of(), new ComputeResponse.ReadInfo(5, Frontier.at(6), Frontier.at(0), true, "interactive"));
    }

    /** A holder of a peek's work that records whether it was stopped. */
    private static AtomicBoolean work(Disposable.Swap holder) {
        AtomicBoolean stopped = new AtomicBoolean();
        holder.update(() -> stopped.set(true));
        return stopped;
    }

    @Test
    void theFirstAnswerWinsAndIsTimed() {
        UUID uuid = UUID.randomUUID();
        AtomicBoolean stopped = work(peeks.register(uuid, ReadPath.FAST));
        assertThat(peeks.isPending(uuid)).isTrue();
        ticker.addAndGet(250);
        peeks.respond(uuid, rows());
        peeks.respond(uuid, PendingPeeks.failure(new IllegalStateException("late")));
        peeks.cancel(uuid);
        assertThat(emitted).containsExactly(new PeekResponse(uuid, rows()));
        assertThat(observed).containsExactly("interactive fast rows 250");
        assertThat(stopped).as("an answered peek's work is not stopped by a late cancel").isFalse();
        assertThat(peeks.size()).isZero();
    }

    @Test
    void aCancelStopsTheWorkAndAnswersCanceled() {
        UUID uuid = UUID.randomUUID();
        AtomicBoolean stopped = work(peeks.register(uuid, ReadPath.SLOW));
        peeks.cancel(uuid);
        peeks.respond(uuid, rows());
        assertThat(stopped).isTrue();
        assertThat(emitted).containsExactly(new PeekResponse(uuid, new ComputeResponse.Canceled()));
        assertThat(observed).containsExactly("interactive slow canceled 0");
    }

    @Test
    void aFailureAnswersWithItsMessageOrItsName() {
        UUID uuid = UUID.randomUUID();
        peeks.register(uuid, ReadPath.FAST);
        peeks.respond(uuid, PendingPeeks.failure(new IllegalStateException()));
        assertThat(emitted).containsExactly(new PeekResponse(uuid, ComputeResponse.Error.failed(EvalError.Code.DATA_EXCEPTION, "java.lang.IllegalStateException")));
        assertThat(observed).containsExactly("interactive fast error 0");
        assertThat(PendingPeeks.failure(new IllegalArgumentException("bad key")).message()).isEqualTo("bad key");
    }

    @Test
    void forgettingAllStopsEveryPeekAndAnswersNone() {
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        AtomicBoolean firstStopped = work(peeks.register(first, ReadPath.FAST));
        AtomicBoolean secondStopped = work(peeks.register(second, ReadPath.SLOW));
        peeks.forgetAll();
        peeks.respond(first, rows());
        assertThat(firstStopped).isTrue();
        assertThat(secondStopped).isTrue();
        assertThat(emitted).isEmpty();
        assertThat(observed).isEmpty();
        assertThat(peeks.size()).isZero();
    }
}
