package dev.tandem.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.time.Frontier;
import dev.tandem.trace.Spine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Publication, placeholders, seals, drops and standing holds of the sharing registry. */
class ArrangementSharingRegistryTest {

    static SharedArrangement arrangement(String id, long lower) {
        return new SharedArrangement(id, Schema.ofTypes(List.of(DatumType.INT64)), List.of(0),
                List.of(new Spine(id + " oks", Frontier.at(lower))), List.of(new Spine(id + " errs", Frontier.at(lower))));
    }

    @Test
    void aReaderThatArrivesFirstWaitsForPublicationAndSeal() {
        ArrangementSharingRegistry r = new ArrangementSharingRegistry();
        Mono<SharedArrangement> read = r.awaitReadable("u1", 5);
        SharedArrangement a = arrangement("u1", 0);
        StepVerifier.create(read)
                .then(() -> assertThat(r.current("u1").state()).isEqualTo(Publication.State.PLACEHOLDER))
                .then(() -> r.publish(a, Frontier.at(0), false))
                .expectNoEvent(Duration.ofMillis(50))
                .then(() -> r.seal("u1", Frontier.at(5)))
                .expectNoEvent(Duration.ofMillis(50))
                .then(() -> r.seal("u1", Frontier.at(6)))
                .expectNext(a)
                .verifyComplete();
        assertThat(r.waiters("u1")).isZero();
    }

    @Test
    void dropFailsWaitingAndLaterReaders() {
        ArrangementSharingRegistry r = new ArrangementSharingRegistry();
        r.publish(arrangement("u2", 0), Frontier.at(0), false);
        StepVerifier.create(r.awaitReadable("u2", 10))
                .then(() -> r.drop("u2"))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(SharedCollectionDroppedException.class)
                        .hasMessageContaining("u2 was dropped"))
                .verify(Duration.ofSeconds(5));
        StepVerifier.create(r.awaitPublished("u2")).expectError(SharedCollectionDroppedException.class).verify(Duration.ofSeconds(5));
    }

    @Test
    void aDroppedArrangementIsNotKeptReachableByTheRegistry() throws Exception {
        ArrangementSharingRegistry r = new ArrangementSharingRegistry();
        java.lang.ref.WeakReference<SharedArrangement> ref = publishSealAndDrop(r, "u9");
        // a later reader still learns that it was dropped
        StepVerifier.create(r.awaitPublished("u9")).expectError(SharedCollectionDroppedException.class).verify(Duration.ofSeconds(5));
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(ref.get()).as("the dropped arrangement (its traces: an index's whole data) is collectable").isNull();
    }

    private static java.lang.ref.WeakReference<SharedArrangement> publishSealAndDrop(ArrangementSharingRegistry r, String id) {
        SharedArrangement a = arrangement(id, 0);
        r.publish(a, Frontier.at(0), true);
        r.seal(id, Frontier.at(3));
        r.drop(id);
        return new java.lang.ref.WeakReference<>(a);
    }

    @Test
    void theStandingHoldStartsAtPublicationAdvancesAndIsReleasedByTheEmptyFrontier() {
        ArrangementSharingRegistry r = new ArrangementSharingRegistry();
        SharedArrangement a = arrangement("u3", 0);
        r.publish(a, Frontier.at(0), true);
        assertThat(r.standingHold("u3")).isEqualTo(Frontier.at(0));
        assertThat(a.oks().get(0).holds()).extracting(h -> h.holder()).contains(ArrangementSharingRegistry.STANDING_HOLD);
        r.advanceStandingHold("u3", Frontier.at(7));
        assertThat(r.standingHold("u3")).isEqualTo(Frontier.at(7));
        r.advanceStandingHold("u3", Frontier.at(3));
        assertThat(r.standingHold("u3")).as("holds only move forward").isEqualTo(Frontier.at(7));
        r.advanceStandingHold("u3", Frontier.EMPTY);
        assertThat(r.standingHold("u3")).isNull();
        assertThat(a.oks().get(0).holds()).isEmpty();
    }

    @Test
    void aCompactionAppliedBeforePublicationStartsTheStandingHoldThere() {
        ArrangementSharingRegistry r = new ArrangementSharingRegistry();
        r.advanceStandingHold("u4", Frontier.at(4));
        r.publish(arrangement("u4", 0), Frontier.at(0), true);
        assertThat(r.standingHold("u4")).isEqualTo(Frontier.at(4));
    }

    @Test
    void noWakeUpIsLostUnderConcurrentWaitsAndSeals() throws Exception {
        ArrangementSharingRegistry r = new ArrangementSharingRegistry();
        int ids = 16;
        int waiters = 20_000;
        for (int i = 0; i < ids; i++) {
            if (i % 2 == 0) {
                r.publish(arrangement("s" + i, 0), Frontier.at(0), false);
            }
        }
        CountDownLatch done = new CountDownLatch(waiters);
        AtomicInteger failures = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int th = 0; th < 4; th++) {
            int seed = th;
            threads.add(new Thread(() -> {
                Random random = new Random(seed);
                for (int i = 0; i < waiters / 4; i++) {
                    String id = "s" + random.nextInt(ids);
                    r.awaitReadable(id, random.nextInt(200)).subscribe(a -> done.countDown(), e -> {
                        failures.incrementAndGet();
                        done.countDown();
                    });
                }
            }));
        }
        Thread sealer = new Thread(() -> {
            for (int i = 1; i < ids; i += 2) {
                r.publish(arrangement("s" + i, 0), Frontier.at(0), false);
            }
            for (long t = 1; t <= 201; t++) {
                for (int i = 0; i < ids; i++) {
                    r.seal("s" + i, Frontier.at(t));
                }
            }
        });
        threads.forEach(Thread::start);
        sealer.start();
        for (Thread t : threads) {
            t.join();
        }
        sealer.join();
        assertThat(done.await(30, TimeUnit.SECONDS)).as("every waiter woke up; %d left", done.getCount()).isTrue();
        assertThat(failures.get()).isZero();
        assertThat(r.emitFailures()).isZero();
        for (int i = 0; i < ids; i++) {
            assertThat(r.waiters("s" + i)).isZero();
        }
    }
}
