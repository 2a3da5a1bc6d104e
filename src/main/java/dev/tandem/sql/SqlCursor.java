package dev.tandem.sql;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * A cursor declared in a transaction block ({@code DECLARE c CURSOR FOR ...}): the rows of a query,
 * computed once when it is declared, or the change rows of a {@code SUBSCRIBE}, which {@code FETCH}
 * hands out as they come.
 *
 * <p><b>Waiting.</b> A {@code FETCH} from a SUBSCRIBE cursor with no row buffered waits for the stream's
 * next signal (a batch, its end or its error), for at most its timeout; nothing polls. <b>Buffering.</b>
 * The cursor asks the stream for one batch at a time and stops asking while {@link #BUFFER_ROWS} rows
 * wait to be fetched, so a client that stops fetching is handled as a slow consumer by the change
 * stream (it lags and ends with an error) instead of filling the heap.
 */
final class SqlCursor {

    /** Rows buffered past which a SUBSCRIBE cursor stops asking for more. */
    static final int BUFFER_ROWS = 10_000;

    private final String name;
    private final List<SqlColumn> columns;
    private final ArrayDeque<Object[]> rows = new ArrayDeque<>();
    private final Upstream upstream;
    private boolean done;
    private Throwable error;
    private boolean requested;
    private Sinks.Empty<Void> arrival = Sinks.empty();

    private SqlCursor(String name, List<SqlColumn> columns, List<Object[]> rows, boolean follows) {
        this.name = name;
        this.columns = columns;
        this.rows.addAll(rows);
        this.upstream = follows ? new Upstream() : null;
        this.done = !follows;
    }

    /** A cursor over a query's rows. */
    static SqlCursor of(String name, List<SqlColumn> columns, List<Object[]> rows) {
        return new SqlCursor(name, columns, rows, false);
    }

    /**
     * A cursor following a change stream (subscribed now); fails with the stream's error when it fails at
     * once (refused, over a limit), having released what it took.
     */
    static SqlCursor following(String name, List<SqlColumn> columns, Flux<List<Object[]>> stream) {
        SqlCursor c = new SqlCursor(name, columns, List.of(), true);
        stream.subscribe(c.upstream);
        synchronized (c) {
            if (c.error != null && c.rows.isEmpty()) {
                throw c.error instanceof RuntimeException r ? r : new IllegalStateException(c.error);
            }
        }
        return c;
    }

    String name() {
        return name;
    }

    List<SqlColumn> columns() {
        return columns;
    }

    /**
     * Up to {@code count} rows: at once when some are buffered (or the cursor is exhausted), else after
     * the next signal of the stream, or none after {@code timeout} (null: wait for a row). A stream's error
     * is raised once the rows before it were fetched.
     */
    Mono<List<Object[]>> fetch(long count, Duration timeout, Scheduler timer) {
        return Mono.defer(() -> {
            Sinks.Empty<Void> wait;
            synchronized (this) {
                if (!rows.isEmpty() || done || count == 0) {
                    return Mono.fromCallable(() -> take(count));
                }
                wait = arrival;
            }
            Mono<Void> signal = wait.asMono();
            if (timeout != null) {
                signal = signal.timeout(timeout, Mono.empty(), timer);
            }
            return signal.then(Mono.fromCallable(() -> take(count)));
        });
    }

    private List<Object[]> take(long count) {
        List<Object[]> out = new ArrayList<>();
        synchronized (this) {
            if (rows.isEmpty() && error != null) {
                throw error instanceof RuntimeException r ? r : new IllegalStateException(error);
            }
            while (out.size() < count && !rows.isEmpty()) {
                out.add(rows.poll());
            }
        }
        if (upstream != null) {
            upstream.more();
        }
        return out;
    }

    /** Ends the cursor: a stream is cancelled (its subscription, hold and permit released). */
    void close() {
        if (upstream != null) {
            upstream.dispose();
        }
        end(null);
    }

    private void end(Throwable e) {
        Sinks.Empty<Void> s;
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
            error = e;
            s = arrival;
        }
        s.tryEmitEmpty();
    }

    /** The cursor's subscriber to its change stream: one batch requested at a time, while the buffer has room. */
    private final class Upstream extends BaseSubscriber<List<Object[]>> {
        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            more();
        }

        @Override
        protected void hookOnNext(List<Object[]> batch) {
            Sinks.Empty<Void> s;
            synchronized (SqlCursor.this) {
                rows.addAll(batch);
                requested = false;
                s = arrival;
                arrival = Sinks.empty();
            }
            more();
            s.tryEmitEmpty();
        }

        @Override
        protected void hookOnComplete() {
            end(null);
        }

        @Override
        protected void hookOnError(Throwable t) {
            end(t);
        }

        /** Asks for the next batch unless one is asked for already, the buffer is full or the stream ended. */
        void more() {
            synchronized (SqlCursor.this) {
                if (requested || done || rows.size() >= BUFFER_ROWS || isDisposed()) {
                    return;
                }
                requested = true;
            }
            request(1);
        }
    }
}
