package dev.tandem.api;

import static dev.tandem.api.TandemServer.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.config.SqlConfiguration;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table with array columns on a real server: written by SQL over the wire protocol (literals, constructors,
 * pgjdbc's {@code setArray}, an update) and by the HTTP rows API (JSON arrays), read over both (text and binary
 * format, JSON arrays), described by the catalog as {@code text[]}, and the same after a restart.
 */
class ArrayColumnsApiTest {

    @TempDir
    Path dir;

    private static final String ALL = "{\"from\":\"tagged\",\"isolation\":\"strict\",\"order_by\":[{\"col\":\"id\"}]}";
    private static final String ROWS = """
            [[1,["a","b c",null],[1,2],["1.50"]],
             [2,["x"],null,[]],
             [3,["p q",null],[5,null],null],
             [4,[],[7],["-2"]]]""";

    @Test
    void arrayColumnsAreWrittenAndReadOverHttpAndTheWireAndSurviveARestart() throws SQLException {
        try (TandemServer s = new TandemServer(dir, Map.of("tandem.pgwire.port", 0))) {
            try (Connection c = connect(s, false); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE tagged (id bigint, tags text[], ns bigint[], xs numeric[])");
                st.execute("INSERT INTO tagged VALUES (1, '{a,\"b c\",NULL}', ARRAY[1, 2], '{1.50}'), (2, ARRAY['x', 'y'], NULL, '{}')");
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO tagged (id, tags, ns) VALUES (?, ?, ?)")) {
                    ps.setLong(1, 3);
                    ps.setArray(2, c.createArrayOf("text", new Object[] {"p q", null}));
                    ps.setArray(3, c.createArrayOf("bigint", new Object[] {5L, null}));
                    assertThat(ps.executeUpdate()).isEqualTo(1);
                }
                assertThat(st.executeUpdate("UPDATE tagged SET tags = array_append('{}'::text[], tags[1]) WHERE id = 2")).isEqualTo(1);
            }
            TandemServer.Response w = s.post("/v1/tables/tagged/rows", "{\"insert\":[[4,[],[7],[\"-2\"]]]}");
            assertThat(w.status()).as(w.text()).isEqualTo(200);
            assertThat(s.post("/v1/tables/tagged/rows", "{\"insert\":[[5,\"{a}\",null,null]]}").status()).isEqualTo(422);
            check(s);
        }
        try (TandemServer s = new TandemServer(dir, Map.of("tandem.pgwire.port", 0))) {
            check(s);
        }
    }

    private static void check(TandemServer s) throws SQLException {
        TandemServer.Response all = s.post("/v1/peek", ALL);
        assertThat(all.status()).as(all.text()).isEqualTo(200);
        assertThat(all.json().get("rows")).isEqualTo(json(ROWS));
        TandemServer.Response table = s.get("/v1/tables/tagged");
        assertThat(table.json().get("columns").get(1)).isEqualTo(json("{\"name\":\"tags\",\"type\":\"string_array\",\"nullable\":true}"));
        TandemServer.Response sql = s.post("/v1/sql", "{\"sql\":\"SELECT id, tags FROM tagged WHERE 'x'::text = ANY(tags) OR 5::bigint = ANY(ns) ORDER BY id\"}");
        assertThat(sql.status()).as(sql.text()).isEqualTo(200);
        assertThat(sql.text()).contains("[\"x\"]", "[\"p q\",null]");
        for (boolean binary : new boolean[] {false, true}) {
            try (Connection c = connect(s, binary); PreparedStatement ps = c.prepareStatement("SELECT id, tags, ns, xs FROM tagged ORDER BY id");
                    ResultSet rs = ps.executeQuery()) {
                List<String> rows = new ArrayList<>();
                while (rs.next()) {
                    List<String> row = new ArrayList<>();
                    row.add(rs.getString(1));
                    for (int i = 2; i <= 4; i++) {
                        Array a = rs.getArray(i);
                        row.add(a == null ? "NULL" : a.getBaseTypeName() + Arrays.deepToString((Object[]) a.getArray()));
                    }
                    rows.add(String.join("|", row));
                }
                assertThat(rows).as(binary ? "binary" : "text").containsExactly(
                        "1|text[a, b c, null]|int8[1, 2]|numeric[1.50]",
                        "2|text[x]|NULL|numeric[]",
                        "3|text[p q, null]|int8[5, null]|NULL",
                        "4|text[]|int8[7]|numeric[-2]");
            }
        }
        try (Connection c = connect(s, false); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a WHERE a.attrelid = 'tagged'::regclass AND a.attnum > 0"
                        + " ORDER BY a.attnum")) {
            List<String> described = new ArrayList<>();
            while (rs.next()) {
                described.add(rs.getString(1) + " " + rs.getString(2));
            }
            assertThat(described).containsExactly("id bigint", "tags text[]", "ns bigint[]", "xs numeric[]");
        }
    }

    private static Connection connect(TandemServer s, boolean binary) throws SQLException {
        int port = s.context.getBean(SqlConfiguration.PgWireHolder.class).port();
        String suffix = binary ? "&prepareThreshold=-1&binaryTransfer=true&binaryTransferEnable=1009,1016" : "";
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/tandem?user=me&sslmode=disable" + suffix);
    }
}
