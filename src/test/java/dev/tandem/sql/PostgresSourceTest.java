package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.source.postgres.PgSourceManager;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PostgreSQL source against a real PostgreSQL ({@code POSTGRES_ORACLE_ADDRESS}, started with
 * {@code wal_level=logical} by bin/test-postgres.sh), which is also the oracle: after the upstream's
 * writes stop and Tandem caught up, every replicated table equals PostgreSQL's own, read back by SQL.
 * Each test works in a database of its own.
 */
class PostgresSourceTest extends PostgresSourceTesting {

    @Test
    void walkthroughCopiesThenStreamsInsertsUpdatesDeletesAndTruncates() throws SQLException {
        up("CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, price float8, stock bigint, active bool, small int2, ts timestamp,"
                        + " code varchar(10), flag char(3))",
                "INSERT INTO items SELECT g, 'item ' || g, g * 1.5, g * 10, g % 2 = 0, g, timestamp '2024-01-02 03:04:05.123456' + g * interval '1 hour',"
                        + " 'c' || g, 'x' FROM generate_series(1, 25000) g",
                "CREATE PUBLICATION pub FOR TABLE items");
        tandem("CREATE SOURCE shop FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub'");
        waitFor("the copy", () -> "streaming".equals(state("shop")));
        String cols = "id, name, price, stock, active, small, code, flag";
        assertCaughtUp(cols, "items");
        assertThat(sources.statusOrNull("shop").rowsCopied()).isEqualTo(25000);

        tandem("CREATE INDEX items_by_name ON items (name)");
        up("INSERT INTO items VALUES (0, 'zero', NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
                "UPDATE items SET name = 'renamed', price = 2.25 WHERE id = 1",
                "UPDATE items SET id = 100000 WHERE id = 2",
                "DELETE FROM items WHERE id BETWEEN 10 AND 20");
        assertCaughtUp(cols, "items");
        assertThat(tandem("SELECT id FROM items WHERE name = 'renamed'").rows()).hasSize(1);
        // timestamps compared as the upstream formats them
        assertThat(tandem("SELECT ts FROM items WHERE id = 3").rows().get(0)[0].toString()).startsWith("2024-01-02T06:04:05.123456");

        // read-only to Tandem's own writes
        assertThatThrownBy(() -> tandem("INSERT INTO items (id, name) VALUES (-1, 'no')")).hasMessageContaining("replicated from PostgreSQL");
        assertThatThrownBy(() -> tandem("DELETE FROM items")).hasMessageContaining("replicated from PostgreSQL");

        up("TRUNCATE items", "INSERT INTO items (id, name) VALUES (7, 'after truncate')");
        assertCaughtUp(cols, "items");
        assertThat(sources.statusOrNull("shop").tableErrors()).isEmpty();
    }

    /**
     * The model test: random multi-statement transactions over three tables (a keyed one, one with
     * TOASTed text, a REPLICA IDENTITY FULL multiset) committed upstream while Tandem replicates; once
     * the load stops, every table equals PostgreSQL's.
     */
    @Test
    void randomTransactionsOverThreeTablesEqualTheUpstream() throws Exception {
        createModelTables();
        tandem("CREATE SOURCE m FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub' FOR TABLES (a, b, c)");
        Random random = new Random(42);
        try (Connection c = upstream()) {
            c.setAutoCommit(false);
            for (int i = 0; i < 300; i++) {
                randomTransaction(c, random);
            }
        }
        assertCaughtUp("*", "a", "b", "c");
        assertThat(sources.statusOrNull("m").tableErrors()).isEmpty();
        assertThat(sources.statusOrNull("m").state()).isEqualTo("streaming");
    }

    /**
     * Restart mid-stream (an in-process restart of the whole Tandem stack over the same data directory,
     * while the upstream keeps committing): the source resumes from its durable position; the tables
     * equal the upstream's, with no row twice (c is a multiset, where a duplicate would show).
     */
    @Test
    void restartResumesWithNothingLostOrTwice() throws Exception {
        createModelTables();
        tandem("CREATE SOURCE m FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub'");
        waitFor("the copy", () -> "streaming".equals(state("m")));
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread writer = upstreamWriter(7, writing, failed);
        writer.start();
        try {
            for (int round = 0; round < 3; round++) {
                Thread.sleep(300);
                closeTandem();
                Thread.sleep(200);
                open();
                assertThat(state("m")).isNotEqualTo("failed");
            }
        } finally {
            writing.set(false);
            writer.join(30_000);
        }
        assertThat(failed.get()).isNull();
        assertCaughtUp("*", "a", "b", "c");
        assertThat(sources.statusOrNull("m").tableErrors()).isEmpty();
    }

    /**
     * Atomicity: transfers between accounts in two tables, one transaction each; a reader polling the
     * total through an index on a view never sees it change.
     */
    @Test
    void aReaderNeverSeesHalfATransaction() throws Exception {
        up("CREATE TABLE acc_a (id int PRIMARY KEY, balance bigint NOT NULL)",
                "CREATE TABLE acc_b (id int PRIMARY KEY, balance bigint NOT NULL)",
                "INSERT INTO acc_a SELECT g, 1000 FROM generate_series(1, 10) g",
                "INSERT INTO acc_b SELECT g, 1000 FROM generate_series(1, 10) g",
                "CREATE PUBLICATION pub FOR TABLE acc_a, acc_b");
        tandem("CREATE SOURCE bank FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub'");
        waitFor("the copy", () -> "streaming".equals(state("bank")));
        tandem("CREATE VIEW total AS SELECT sum(balance) AS s, count(*) AS n FROM (SELECT balance FROM acc_a UNION ALL SELECT balance FROM acc_b) u");
        tandem("CREATE INDEX total_idx ON total (s)");
        waitFor("the total", () -> tandem("SELECT s FROM total").rows().size() == 1);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            Random random = new Random(3);
            try (Connection c = upstream(); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                for (int i = 0; i < 300; i++) {
                    int amount = 1 + random.nextInt(50);
                    String from = random.nextBoolean() ? "acc_a" : "acc_b";
                    String to = random.nextBoolean() ? "acc_a" : "acc_b";
                    s.execute("UPDATE " + from + " SET balance = balance - " + amount + " WHERE id = " + (1 + random.nextInt(10)));
                    s.execute("UPDATE " + to + " SET balance = balance + " + amount + " WHERE id = " + (1 + random.nextInt(10)));
                    c.commit();
                }
            } catch (Throwable e) {
                failed.set(e);
            } finally {
                writing.set(false);
            }
        });
        writer.start();
        int reads = 0;
        while (writing.get()) {
            List<Object[]> rows = tandem("SELECT s, n FROM total").rows();
            assertThat(rows).hasSize(1);
            assertThat(rows.get(0)[0]).isEqualTo(20_000L);
            assertThat(rows.get(0)[1]).isEqualTo(20L);
            reads++;
        }
        writer.join(30_000);
        assertThat(failed.get()).isNull();
        assertCaughtUp("*", "acc_a", "acc_b");
        assertThat(tandem("SELECT s FROM total").rows().get(0)[0]).isEqualTo(20_000L);
        assertThat(reads).isPositive();
    }

    private String confirmedFlush(String slot) throws SQLException {
        try (Connection c = upstream(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT confirmed_flush_lsn - '0/0'::pg_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'")) {
            return r.next() ? r.getString(1) : null;
        }
    }

    /** An idle source's slot keeps confirming while another table of the database takes writes: WAL is not held back. */
    @Test
    void anIdleSourceKeepsConfirmingAndDropSourceDropsTheSlot() throws Exception {
        up("CREATE TABLE quiet (id int PRIMARY KEY)", "CREATE TABLE busy (id serial PRIMARY KEY, pad text)", "CREATE PUBLICATION pub FOR TABLE quiet");
        tandem("CREATE SOURCE idle FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub'");
        waitFor("the copy", () -> "streaming".equals(state("idle")));
        String slot = sources.statusOrNull("idle").slot();
        long before = Long.parseLong(confirmedFlush(slot));
        up("INSERT INTO busy (pad) SELECT repeat('x', 100) FROM generate_series(1, 1000)");
        long wal;
        try (Connection c = upstream(); Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")) {
            r.next();
            wal = r.getLong(1);
        }
        waitFor("the slot's confirmed_flush_lsn to pass the busy table's writes", () -> {
            try {
                up("INSERT INTO busy (pad) VALUES ('tick')");
                return Long.parseLong(confirmedFlush(slot)) >= wal;
            } catch (SQLException e) {
                throw new AssertionError(e);
            }
        });
        assertThat(Long.parseLong(confirmedFlush(slot))).isGreaterThan(before);
        waitFor("nothing behind", () -> sources.statusOrNull("idle").bytesBehind() == 0);

        tandem("DROP SOURCE idle");
        assertThat(confirmedFlush(slot)).as("the slot is gone upstream").isNull();
        assertThat(stack.controller.catalog().stream().noneMatch(e -> e.name().equals("quiet"))).isTrue();
        assertThatThrownBy(() -> tandem("DROP SOURCE idle")).hasMessageContaining("does not exist");
        tandem("DROP SOURCE IF EXISTS idle");
    }

    private void refused(String statement, String message) throws SQLException {
        int catalog = stack.controller.catalog().size();
        assertThatThrownBy(() -> tandem(statement)).hasMessageContaining(message);
        assertThat(stack.controller.catalog()).as("nothing half-created").hasSize(catalog);
        assertThat(sources.list()).isEmpty();
        assertThat(slots()).isZero();
    }

    /** Each refusal at CREATE SOURCE is a clear error, and nothing is created in Tandem or upstream. */
    @Test
    void createSourceRefusalsCreateNothing() throws Exception {
        up("CREATE TABLE ok (id int PRIMARY KEY, v text)",
                "CREATE TABLE money (id int PRIMARY KEY, amount numeric(10, 2), d date)",
                "CREATE TABLE nokey (v text)",
                "CREATE PUBLICATION pub FOR TABLE ok",
                "CREATE PUBLICATION pub_money FOR TABLE ok, money",
                "CREATE PUBLICATION pub_nokey FOR TABLE nokey",
                "CREATE ROLE pw LOGIN REPLICATION PASSWORD 's3cr3t-Pw'",
                "GRANT SELECT ON ALL TABLES IN SCHEMA public TO pw");
        // the password comes from a secret, and the test server checks it for this role only
        try (Connection c = upstream(); Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', 'sed -i \"1i host all pw 127.0.0.1/32 scram-sha-256\" '"
                    + " || current_setting('hba_file')); END $$");
            s.execute("SELECT pg_reload_conf()");
        }
        Thread.sleep(300);
        String base = "host=" + host + " port=" + port + " dbname=" + db;
        secrets.put("wrong", "nope");
        secrets.put("good", "s3cr3t-Pw");
        refused("CREATE SOURCE s FROM POSTGRES CONNECTION '" + base + " user=pw' PASSWORD SECRET 'wrong' PUBLICATION 'pub'",
                "password authentication failed");
        refused("CREATE SOURCE s FROM POSTGRES CONNECTION '" + base + " user=pw' PASSWORD SECRET 'missing' PUBLICATION 'pub'",
                "tandem.secrets.missing");
        refused("CREATE SOURCE s FROM POSTGRES CONNECTION '" + base + " user=pw password=s3cr3t-Pw' PUBLICATION 'pub'", "PASSWORD SECRET");
        refused("CREATE SOURCE s FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'nopub'", "publication 'nopub' does not exist");
        refused("CREATE SOURCE s FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub_money'",
                "table public.money, column d: type date cannot be held exactly");
        refused("CREATE SOURCE s FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub_nokey'", "has no primary key");
        refused("CREATE SOURCE s FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub' FOR TABLES (money)", "not in publication");
        // a failure after the slot exists (the second table's name is no Tandem name): the first table and the slot are undone
        up("CREATE TABLE aaa_ok (id int PRIMARY KEY)", "CREATE TABLE \"bad name\" (id int PRIMARY KEY)",
                "CREATE PUBLICATION pub_bad FOR TABLE aaa_ok, \"bad name\"");
        refused("CREATE SOURCE s FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub_bad'", "name 'bad name' is not valid");
        tandem("CREATE TABLE aaa_ok (x bigint)");
        tandem("DROP TABLE aaa_ok");
        tandem("CREATE TABLE ok (x bigint)");
        refused("CREATE SOURCE s FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub'", "'ok' already exists");
        tandem("DROP TABLE ok");

        // the right password, a numeric held exactly, and a date taken as text when asked
        tandem("CREATE SOURCE s FROM POSTGRES CONNECTION '" + base + " user=pw' PASSWORD SECRET 'good' PUBLICATION 'pub_money'"
                + " FOR TABLES (ok, money AS amounts) TEXT COLUMNS (money.d)");
        up("INSERT INTO money VALUES (1, 12.50, '2026-12-05')");
        waitFor("the row", () -> tandem("SELECT amount FROM amounts").rows().size() == 1 || "failed".equals(state("s")));
        assertThat(state("s")).as(sources.list().toString()).isEqualTo("streaming");
        assertThat(tandem("SELECT amount, d FROM amounts").rows().get(0)).containsExactly(new java.math.BigDecimal("12.50"), "2026-12-05");
        assertThat(stack.storage.catalogEntries().values()).as("the password is stored nowhere").noneMatch(v -> v.contains("s3cr3t-Pw"));
        assertThatThrownBy(() -> tandem("CREATE SOURCE s FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub'"))
                .hasMessageContaining("already exists");
    }

    /** An upstream schema change puts that table in an error state; the source's other tables keep flowing. */
    @Test
    void aSchemaChangeStopsThatTableOnly() throws Exception {
        up("CREATE TABLE t_one (id int PRIMARY KEY, v text)", "CREATE TABLE t_two (id int PRIMARY KEY, v text)",
                "CREATE PUBLICATION pub FOR TABLE t_one, t_two");
        tandem("CREATE SOURCE s FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub'");
        waitFor("the copy", () -> "streaming".equals(state("s")));
        up("INSERT INTO t_one VALUES (1, 'a')", "ALTER TABLE t_one ADD COLUMN extra int", "INSERT INTO t_one VALUES (2, 'b', 3)",
                "INSERT INTO t_two VALUES (1, 'x')");
        assertCaughtUp("*", "t_two");
        waitFor("the error", () -> !sources.statusOrNull("s").tableErrors().isEmpty());
        assertThat(sources.statusOrNull("s").tableErrors()).containsKey("t_one");
        assertThat(sources.statusOrNull("s").tableErrors().get("t_one")).contains("changed shape");
        assertThat(tandemRows("t_one", "id, v")).containsOnlyKeys("1|a|");
        up("INSERT INTO t_two VALUES (2, 'y')");
        assertCaughtUp("*", "t_two");
    }

    /**
     * The upstream connection lost mid-stream (its walsender terminated, as a PostgreSQL restart would):
     * the source reconnects with backoff and resumes exactly.
     */
    @Test
    void aLostUpstreamConnectionReconnectsAndResumesExactly() throws Exception {
        createModelTables();
        tandem("CREATE SOURCE m FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub'");
        waitFor("the copy", () -> "streaming".equals(state("m")));
        String slot = sources.statusOrNull("m").slot();
        Random random = new Random(11);
        try (Connection c = upstream()) {
            c.setAutoCommit(false);
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 30; i++) {
                    randomTransaction(c, random);
                }
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND active_pid IS NOT NULL");
                }
                c.commit();
            }
        }
        assertCaughtUp("*", "a", "b", "c");
        PgSourceManager.Status status = sources.statusOrNull("m");
        assertThat(status.state()).isEqualTo("streaming");
        assertThat(status.tableErrors()).isEmpty();
        assertThat(status.transactions()).isPositive();
    }

    /** The statements of a README SQL block (comments dropped), each with the text of its trailing {@code -- } comment, if any. */
    private static List<String[]> statements(String block) {
        List<String[]> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : block.split("\n")) {
            int comment = line.indexOf("--");
            String code = comment < 0 ? line : line.substring(0, comment);
            current.append(code).append('\n');
            if (code.trim().endsWith(";")) {
                String sql = current.toString().trim();
                out.add(new String[] {sql.substring(0, sql.length() - 1), comment < 0 ? null : line.substring(comment + 2).trim()});
                current.setLength(0);
            }
        }
        return out;
    }

    /**
     * The README's walk-through, as written: its upstream block run in PostgreSQL, its Tandem block run
     * here (the connection string pointed at the test server), the lookup answering what it says, and an
     * upstream UPDATE reflected in the next reads.
     */
    @Test
    void theReadmeWalkthrough() throws Exception {
        String readme = java.nio.file.Files.readString(Path.of("README.md"));
        int at = readme.indexOf("## PostgreSQL sources");
        assertThat(at).as("the README's PostgreSQL sources section").isNotNegative();
        int next = readme.indexOf("\n## ", at + 5);
        String section = readme.substring(at, next < 0 ? readme.length() : next);
        List<String> blocks = new ArrayList<>();
        for (int from = section.indexOf("```sql\n"); from >= 0; from = section.indexOf("```sql\n", from + 1)) {
            blocks.add(section.substring(from + 7, section.indexOf("```", from + 7)));
        }
        assertThat(blocks).hasSize(2);
        for (String[] st : statements(blocks.get(0))) {
            up(st[0]);
        }
        secrets.put("shop", "unused by a server that trusts");
        String lookupAnswer = null;
        for (String[] st : statements(blocks.get(1))) {
            String sql = st[0].replaceFirst("CONNECTION '[^']*'", "CONNECTION '" + conninfo() + "'");
            if (sql.startsWith("SELECT")) {
                waitFor("the source", () -> "streaming".equals(state("shop")));
                String query = sql;
                String expected = st[1];
                waitFor("the lookup", () -> expected.equals(psqlLine(tandem(query).rows())));
                lookupAnswer = psqlLine(tandem(query).rows());
            } else {
                tandem(sql);
            }
        }
        assertThat(lookupAnswer).isEqualTo("2 | 7.25");
        java.util.regex.Matcher update = java.util.regex.Pattern.compile("`(UPDATE items[^`]*)`").matcher(section);
        assertThat(update.find()).isTrue();
        up(update.group(1));
        waitFor("the upstream write", () -> "2 | 8.0".equals(psqlLine(tandem("SELECT id, price FROM items WHERE name = 'ink'").rows())));
        tandem("DROP SOURCE shop");
        assertThat(slots()).isZero();
    }

    private static String psqlLine(List<Object[]> rows) {
        if (rows.size() != 1) {
            return rows.size() + " rows";
        }
        return java.util.Arrays.stream(rows.get(0)).map(String::valueOf).collect(java.util.stream.Collectors.joining(" | "));
    }

    /**
     * Read-your-upstream-writes: a session that sets {@code tandem.after_lsn} to the upstream's position
     * after its commit sees that commit in its next read, without polling; a position the sources never
     * reach fails the read when the wait times out.
     */
    @Test
    void afterLsnReadsSeeTheUpstreamWrite() throws Exception {
        up("CREATE TABLE kv (k int PRIMARY KEY, v text)", "CREATE PUBLICATION pub FOR TABLE kv");
        tandem("CREATE SOURCE s FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub'");
        waitFor("the copy", () -> "streaming".equals(state("s")));
        SqlSession session = new SqlSession();
        try (Connection c = upstream(); Statement s = c.createStatement()) {
            for (int i = 0; i < 20; i++) {
                s.execute("INSERT INTO kv VALUES (" + i + ", 'v" + i + "')");
                String lsn;
                try (ResultSet r = s.executeQuery("SELECT pg_current_wal_lsn()")) {
                    r.next();
                    lsn = r.getString(1);
                }
                stack.run("SET tandem.after_lsn = '" + lsn + "'", session);
                assertThat(stack.run("SELECT v FROM kv WHERE k = " + i, session).rows()).as("after " + lsn).hasSize(1);
            }
        }
        assertThatThrownBy(() -> stack.run("SET tandem.after_lsn = 'nonsense'", session)).hasMessageContaining("tandem.after_lsn");
        stack.run("SET tandem.after_lsn = 'FFFFFFFF/0'", session);
        assertThatThrownBy(() -> stack.run("SELECT v FROM kv", session)).hasMessageContaining("have not applied the upstream through FFFFFFFF/0");
        stack.run("SET tandem.after_lsn = ''", session);
        assertThat(stack.run("SELECT v FROM kv", session).rows()).hasSize(20);
    }
}
