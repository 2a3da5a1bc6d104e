package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The PostgreSQL JDBC driver over the wire protocol: DDL, prepared writes and reads (text and binary), errors, cancel. */
class PgWireJdbcTest extends TrustedPgWireServer {



    @Test
    void tablesPreparedStatementsAndErrors() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id bigint NOT NULL, customer integer, amount double precision, note text)");
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO orders VALUES (?, ?, ?, ?)")) {
                for (int i = 1; i <= 12; i++) {
                    ins.setLong(1, i);
                    ins.setInt(2, i % 3);
                    ins.setDouble(3, i * 1.5);
                    if (i % 4 == 0) {
                        ins.setNull(4, java.sql.Types.VARCHAR);
                    } else {
                        ins.setString(4, "n" + i);
                    }
                    assertThat(ins.executeUpdate()).isEqualTo(1);
                }
            }
            s.execute("CREATE INDEX orders_by_id ON orders (id)");
            // more executions than the driver's prepare threshold, so it switches to a named statement and binary results
            try (PreparedStatement q = c.prepareStatement("SELECT id, amount, note FROM orders WHERE id = ?")) {
                for (int i = 1; i <= 12; i++) {
                    q.setLong(1, i);
                    try (ResultSet rs = q.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getLong(1)).isEqualTo(i);
                        assertThat(rs.getDouble(2)).isEqualTo(i * 1.5);
                        assertThat(rs.getString(3)).isEqualTo(i % 4 == 0 ? null : "n" + i);
                        assertThat(rs.next()).isFalse();
                    }
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT customer, count(*), sum(amount) FROM orders GROUP BY customer ORDER BY customer")) {
                List<String> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(rs.getLong(1) + ":" + rs.getLong(2) + ":" + rs.getDouble(3));
                }
                assertThat(rows).containsExactly("0:4:45.0", "1:4:33.0", "2:4:39.0");
            }
            assertThatThrownBy(() -> s.executeQuery("SELECT * FROM nope"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42P01"));
            assertThatThrownBy(() -> s.executeQuery("SELECT nope FROM orders"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42703"));
            assertThatThrownBy(() -> s.executeQuery("SELEC 1"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42601"));
            assertThatThrownBy(() -> s.executeQuery("SELECT 1 / (id - id) FROM orders"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("22012"));
            // the connection is still usable after errors
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(12);
            }
        }
    }

    /**
     * The extended protocol's other parts: a portal read in pieces (a fetch size inside a transaction, so
     * Execute with a row limit and PortalSuspended), a prepared statement's parameter and result
     * descriptions before it runs, an EXPLAIN of a statement with a parameter, and the plan of a prepared
     * statement following a catalog change.
     */
    @Test
    void portalsDescriptionsAndExplainWithParameters() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE pieces (id bigint NOT NULL, label text)");
            StringBuilder values = new StringBuilder();
            for (int i = 1; i <= 25; i++) {
                values.append(i > 1 ? ", " : "").append("(").append(i).append(", 'p").append(i).append("')");
            }
            s.execute("INSERT INTO pieces VALUES " + values);
            c.setAutoCommit(false);
            try (PreparedStatement q = c.prepareStatement("SELECT id, label FROM pieces WHERE id > ? ORDER BY id")) {
                q.setFetchSize(4);
                q.setLong(1, 5);
                List<Long> ids = new ArrayList<>();
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
                assertThat(ids).hasSize(20).first().isEqualTo(6L);
                assertThat(ids).last().isEqualTo(25L);
            }
            c.commit();
            c.setAutoCommit(true);
            try (PreparedStatement q = c.prepareStatement("SELECT id, label, id * 2 AS twice FROM pieces WHERE id = ? AND label <> ?")) {
                java.sql.ParameterMetaData pm = q.getParameterMetaData();
                assertThat(pm.getParameterCount()).isEqualTo(2);
                assertThat(pm.getParameterType(1)).isEqualTo(java.sql.Types.BIGINT);
                assertThat(pm.getParameterType(2)).isEqualTo(java.sql.Types.VARCHAR);
                java.sql.ResultSetMetaData md = q.getMetaData();
                assertThat(md.getColumnCount()).isEqualTo(3);
                assertThat(List.of(md.getColumnName(1), md.getColumnName(2), md.getColumnName(3))).containsExactly("id", "label", "twice");
                assertThat(md.getColumnType(1)).isEqualTo(java.sql.Types.BIGINT);
                assertThat(md.getColumnType(2)).isEqualTo(java.sql.Types.VARCHAR);
            }
            try (PreparedStatement q = c.prepareStatement("EXPLAIN SELECT label FROM pieces WHERE id = ?")) {
                q.setLong(1, 7);
                try (ResultSet rs = q.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("slow path: a transient dataflow reading pieces");
                }
                s.execute("CREATE INDEX pieces_by_id ON pieces (id)");
                // the same prepared statement, planned again against the new catalog
                try (ResultSet rs = q.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("fast path: a lookup of key [7] in index pieces_by_id");
                }
            }
        }
    }

    /**
     * Every type Tandem has, read back through the text format (the first executions) and the binary one
     * (pgjdbc's named statement, from its fifth execution), as the values written: a timestamp with
     * microseconds (its offset ignored, as PostgreSQL ignores it for a timestamp without time zone), a
     * double, a boolean, text with characters beyond Latin-1, NULLs.
     */
    @Test
    void everyTypeThroughTextAndBinaryResults() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE typed (id bigint NOT NULL, ts timestamp, x double precision, b boolean, t text)");
            s.execute("INSERT INTO typed VALUES (1, '2024-02-29 23:59:59.123456+05', -0.0005, true, 'Σ straße'), (2, NULL, NULL, NULL, NULL)");
            try (PreparedStatement q = c.prepareStatement("SELECT ts, x, b, t FROM typed WHERE id = ?")) {
                for (int i = 0; i < 8; i++) {
                    q.setLong(1, 1);
                    try (ResultSet rs = q.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getTimestamp(1).toLocalDateTime()).isEqualTo(java.time.LocalDateTime.of(2024, 2, 29, 23, 59, 59, 123_456_000));
                        assertThat(rs.getString(1)).isEqualTo("2024-02-29 23:59:59.123456");
                        assertThat(rs.getDouble(2)).isEqualTo(-0.0005);
                        assertThat(rs.getBoolean(3)).isTrue();
                        assertThat(rs.getString(4)).isEqualTo("Σ straße");
                    }
                    q.setLong(1, 2);
                    try (ResultSet rs = q.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        for (int col = 1; col <= 4; col++) {
                            assertThat(rs.getObject(col)).isNull();
                        }
                    }
                }
            }
            try (PreparedStatement q = c.prepareStatement("SELECT id FROM typed WHERE ts = ?")) {
                q.setTimestamp(1, java.sql.Timestamp.valueOf(java.time.LocalDateTime.of(2024, 2, 29, 23, 59, 59, 123_456_000)));
                try (ResultSet rs = q.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(1);
                }
            }
        }
    }
}
