package dev.tandem.sql;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tandem.controller.CatalogSnapshot;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What planning has found out about statement texts, kept so that it is not found again: their plans (by
 * text; a plan holds while the part of the catalog it depends on is unchanged, see {@link Prepared#fresh}),
 * the objects each names (by text and catalog version), the literal-lifted shapes that do not keep their
 * statements' meaning, and the plannings running now, so that sessions preparing one new text at once
 * plan it once. Bounded by bytes ({@link SqlLimits#planCacheBytes}), by an estimate from each text, never
 * by a count of statements.
 */
final class StatementCache {

    private final Cache<String, Prepared> plans;
    private final Cache<String, Named> named;
    /** Shapes that do not keep their statements' meaning, with the catalog version at which that was found. */
    private final Cache<String, Long> unshaped;
    /** The plannings running now, by text and catalog version. */
    private final ConcurrentHashMap<Planning, Planning> inFlight = new ConcurrentHashMap<>();
    /**
     * The plannings sent to a planning lane and not ended, by the text whose plan answers them (the
     * statement's, or its literal-lifted shape's) and catalog version: what {@code SqlEngine.prepareAsync}
     * lets other sessions wait for instead of queueing a planning of their own.
     */
    private final ConcurrentHashMap<Planning, Planning> onLanes = new ConcurrentHashMap<>();

    StatementCache(long bytes) {
        this.plans = Caffeine.newBuilder().maximumWeight(bytes).weigher((String text, Prepared p) -> weight(text, 0)).executor(Runnable::run).build();
        this.unshaped = Caffeine.newBuilder().maximumWeight(bytes / 16).weigher((String text, Long version) -> weight(text, 0))
                .executor(Runnable::run).build();
        this.named = Caffeine.newBuilder().maximumWeight(bytes).weigher((String text, Named n) -> weight(text, n.objects().size()))
                .executor(Runnable::run).build();
    }

    /**
     * The bytes a cached statement is taken to hold: its text (two bytes a character at most) and what
     * is planned from it (parse tree, relational and scalar plans: on the order of a dozen bytes a
     * character of text), plus a fixed part for the plan's skeleton and {@code objects} names.
     */
    static int weight(String text, int objects) {
        return (int) Math.min(Integer.MAX_VALUE, 16L * text.length() + 4096 + 64L * objects);
    }

    /** The bytes the plans and the named objects hold now, by their estimates. */
    long bytes() {
        plans.cleanUp();
        named.cleanUp();
        return plans.policy().eviction().orElseThrow().weightedSize().orElse(0)
                + named.policy().eviction().orElseThrow().weightedSize().orElse(0);
    }

    /** The plan of {@code text} if one is cached and holds for the catalog {@code now}; else null. */
    Prepared plan(String text, CatalogSnapshot now) {
        Prepared p = plans.getIfPresent(text);
        return p != null && Prepared.fresh(p, now) ? p : null;
    }

    void put(String text, Prepared plan) {
        plans.put(text, plan);
    }

    /** The objects {@code text} names as of catalog {@code version}, if found before; else null. */
    Set<String> objects(String text, long version) {
        Named cached = named.getIfPresent(text);
        return cached != null && cached.version() == version ? cached.objects() : null;
    }

    void putObjects(String text, long version, Set<String> objects) {
        named.put(text, new Named(version, objects));
    }

    /** Whether {@code shape} was found, at catalog {@code version}, not to keep its statements' meaning. */
    boolean unshaped(String shape, long version) {
        Long refused = unshaped.getIfPresent(shape);
        return refused != null && refused == version;
    }

    void unshape(String shape, long version) {
        unshaped.put(shape, version);
    }

    /**
     * The planning of {@code text} against catalog {@code version}: a new one, {@link Planning#mine}, which
     * the caller must {@link #finish}, or the one another session started first, whose plan it may await.
     */
    Planning join(String text, long version) {
        return join(inFlight, text, version);
    }

    /** Ends the caller's own planning: those waiting on it get {@code plan} (null: none to share). */
    void finish(Planning mine, Prepared plan) {
        finish(inFlight, mine, plan);
    }

    /**
     * The lane planning that answers {@code text} (a statement or a shape) against catalog {@code version}: a
     * new one, {@link Planning#mine}, which the caller sends to a lane and must {@link #dequeue} when it ends,
     * or the one another session sent first, whose {@link Planning#ended end} it may wait for.
     */
    Planning queue(String text, long version) {
        return join(onLanes, text, version);
    }

    void dequeue(Planning mine) {
        finish(onLanes, mine, null);
    }

    private static Planning join(ConcurrentHashMap<Planning, Planning> running, String text, long version) {
        Planning mine = new Planning(text, version, true);
        Planning first = running.putIfAbsent(mine, mine);
        return first == null ? mine : new Planning(text, version, false, first.done);
    }

    private static void finish(ConcurrentHashMap<Planning, Planning> running, Planning mine, Prepared plan) {
        mine.done.complete(plan);
        running.remove(mine, mine);
    }

    /** The objects a statement names, as of a catalog version: cached by the statement's text as plans are, so authorizing it plans nothing. */
    private record Named(long version, Set<String> objects) {
    }

    /**
     * A text being planned against a catalog version. Sessions that prepare the same new text at once
     * (eight pgbench clients' first Parse) wait for the first one's plan instead of each planning it:
     * planning is the costly part of a new statement, and done eight times over on two cores it makes
     * every one of them eight times as slow.
     */
    static final class Planning {
        private final String text;
        private final long version;
        private final boolean mine;
        /** The plan, or null when it is not to be shared (it failed, or is not cacheable). */
        private final CompletableFuture<Prepared> done;

        private Planning(String text, long version, boolean mine) {
            this(text, version, mine, new CompletableFuture<>());
        }

        private Planning(String text, long version, boolean mine, CompletableFuture<Prepared> done) {
            this.text = text;
            this.version = version;
            this.mine = mine;
            this.done = done;
        }

        /** Whether the caller started this planning (and must finish it) rather than joined another's. */
        boolean mine() {
            return mine;
        }

        /** Completes when the first planner's planning ends, however it ends. */
        CompletableFuture<?> ended() {
            return done;
        }

        /** The first planner's plan, or null when it has none to share or did not finish within {@code nanos}. */
        Prepared await(long nanos) {
            try {
                return done.get(Math.max(nanos, 0), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Planning other && other.version == version && other.text.equals(text);
        }

        @Override
        public int hashCode() {
            return text.hashCode() * 31 + Long.hashCode(version);
        }
    }
}
