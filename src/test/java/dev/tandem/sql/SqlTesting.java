package dev.tandem.sql;

import java.nio.file.Path;

/** Test access to a SQL engine over a real stack, for the tests of other packages (pgwire). */
public final class SqlTesting {

    private SqlTesting() {
    }

    /** A running stack and its engine. */
    public interface Stack extends AutoCloseable {
        SqlEngine engine();

        /** Reads the controller has in flight. */
        int pendingReads();

        /** Change streams open now, and the transient dataflows they own. */
        int openStreams();

        /** The holders of read holds now, as the introspection collection {@code tandem_read_holds} lists them. */
        java.util.List<String> readHolds();

        @Override
        void close();
    }

    public static Stack stack(Path dir) {
        SqlStack s = new SqlStack(dir);
        return new Stack() {
            @Override
            public SqlEngine engine() {
                return s.sql;
            }

            @Override
            public int pendingReads() {
                return s.controller.pendingReads();
            }

            @Override
            public int openStreams() {
                return s.streams.activeCount() + s.controller.transientStreamCount();
            }

            @Override
            public java.util.List<String> readHolds() {
                return s.controller.readIntrospection("tandem_read_holds", dev.tandem.controller.ReadRequest.of("tandem_read_holds"))
                        .block(java.time.Duration.ofSeconds(30)).rows().stream().map(r -> r.get(0) + " " + r.get(1)).sorted().toList();
            }

            @Override
            public void close() {
                s.close();
            }
        };
    }
}
