package dev.tandem.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * The {@link HydrationChurn} of {@code pg-compare}, in SQL over the PostgreSQL wire protocol (JDBC, one
 * connection per loop), the same two builds over {@code big(id, g, v)} for Tandem and for PostgreSQL,
 * alternating: an indexed group-by ({@value #GROUP_BY}, indexed on {@code g}) and an indexed self-join
 * ({@value #SELF_JOIN}, indexed on {@code id}). Tandem: {@code CREATE VIEW} + {@code CREATE INDEX}, complete
 * once the index is hydrated (polled over REST), then {@code DROP INDEX} + {@code DROP VIEW}. PostgreSQL:
 * {@code CREATE MATERIALIZED VIEW} + {@code CREATE INDEX}, then {@code DROP MATERIALIZED VIEW}.
 */
final class SqlChurn {

    static final String GROUP_BY = "SELECT g, count(*) AS n, sum(v) AS s FROM big GROUP BY g";
    static final String SELF_JOIN = "SELECT a.id AS id, a.g AS g, a.v AS v, b.g AS g2, b.v AS v2 FROM big a JOIN big b ON a.id = b.id";

    /** A build's query and the column its index is on. */
    private record Build(String query, String column) {
    }

    private static final List<Build> BUILDS = List.of(new Build(GROUP_BY, "g"), new Build(SELF_JOIN, "id"));

    private SqlChurn() {
    }

    /** What {@code settings.churn} says of this churn. */
    static String describe(int loops) {
        return loops + " loops over SQL, alternating an indexed group-by (" + GROUP_BY + ", index on g) and an indexed self-join ("
                + SELF_JOIN + ", index on id); Tandem: CREATE VIEW + CREATE INDEX, complete once hydrated, then DROP INDEX + DROP VIEW;"
                + " PostgreSQL: CREATE MATERIALIZED VIEW + CREATE INDEX, then DROP MATERIALIZED VIEW";
    }

    /** The churn's loops against a Tandem server: SQL on {@code jdbcUrl}, hydration polled with {@code http}. */
    static IntFunction<HydrationChurn.Loop> tandem(String jdbcUrl, BenchHttp http) {
        return loop -> new SqlLoop(jdbcUrl, loop) {
            @Override
            void create(Statement s, String view, Build b) throws SQLException {
                s.execute("CREATE VIEW " + view + " AS " + b.query());
                s.execute("CREATE INDEX " + view + "_idx ON " + view + " (" + b.column() + ")");
            }

            @Override
            boolean complete(Statement s, String view, Build b, BooleanSupplier stop) {
                return BenchWorkload.awaitHydrated(http, view + "_idx", Duration.ofHours(1), stop::getAsBoolean) >= 0;
            }

            @Override
            void drop(Statement s, String view) throws SQLException {
                s.execute("DROP INDEX IF EXISTS " + view + "_idx");
                s.execute("DROP VIEW IF EXISTS " + view);
            }
        };
    }

    /** The churn's loops against a PostgreSQL server on {@code jdbcUrl}. */
    static IntFunction<HydrationChurn.Loop> postgres(String jdbcUrl) {
        return loop -> new SqlLoop(jdbcUrl, loop) {
            @Override
            void create(Statement s, String view, Build b) throws SQLException {
                s.execute("CREATE MATERIALIZED VIEW " + view + " AS " + b.query());
            }

            @Override
            boolean complete(Statement s, String view, Build b, BooleanSupplier stop) throws SQLException {
                s.execute("CREATE INDEX " + view + "_idx ON " + view + " (" + b.column() + ")");
                return true;
            }

            @Override
            void drop(Statement s, String view) throws SQLException {
                s.execute("DROP MATERIALIZED VIEW IF EXISTS " + view);
            }
        };
    }

    /** A loop with its own connection; build {@code n} of loop {@code l} is view {@code churn_<l>_<n>} of {@link #BUILDS}. */
    private abstract static class SqlLoop implements HydrationChurn.Loop {
        private final Connection connection;
        private final int loop;

        SqlLoop(String jdbcUrl, int loop) {
            this.loop = loop;
            try {
                this.connection = DriverManager.getConnection(jdbcUrl);
                connection.setAutoCommit(true);
            } catch (SQLException e) {
                throw new IllegalStateException("the churn cannot connect to " + jdbcUrl + ": " + e.getMessage(), e);
            }
        }

        abstract void create(Statement s, String view, Build b) throws SQLException;

        abstract boolean complete(Statement s, String view, Build b, BooleanSupplier stop) throws SQLException;

        abstract void drop(Statement s, String view) throws SQLException;

        private Build build(long n) {
            return BUILDS.get((int) ((loop + n) % BUILDS.size()));
        }

        private String view(long n) {
            return "churn_" + loop + "_" + n;
        }

        @Override
        public void start(long n) {
            try (Statement s = connection.createStatement()) {
                create(s, view(n), build(n));
            } catch (SQLException e) {
                throw new IllegalStateException("creating " + view(n) + " failed: " + e.getMessage(), e);
            }
        }

        @Override
        public boolean await(long n, BooleanSupplier stop) {
            try (Statement s = connection.createStatement()) {
                return complete(s, view(n), build(n), stop);
            } catch (SQLException e) {
                throw new IllegalStateException("completing " + view(n) + " failed: " + e.getMessage(), e);
            }
        }

        @Override
        public void drop(long n) {
            try (Statement s = connection.createStatement()) {
                drop(s, view(n));
            } catch (SQLException e) {
                throw new IllegalStateException("dropping " + view(n) + " failed: " + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // closing a benchmark connection that already failed
            }
        }
    }
}
