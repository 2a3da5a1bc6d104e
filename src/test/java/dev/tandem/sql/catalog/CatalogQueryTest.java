package dev.tandem.sql.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.CatalogSnapshot;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.sql.SqlResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CatalogQueryTest {

    static CatalogSnapshot snapshot() {
        Schema t = new Schema(List.of(new Column("id", DatumType.INT64, false), new Column("name", DatumType.STRING, false),
                new Column("score", DatumType.FLOAT64, true), new Column("at", DatumType.TIMESTAMP, true), new Column("ok", DatumType.BOOL, true)));
        return new CatalogSnapshot(1, List.of(
                new CatalogEntry.Table("u0", "t", t, List.of(new CatalogEntry.Key("t_pkey", List.of("id"), true))),
                new CatalogEntry.Index("u1", "t_pkey", "t", List.of("id"), t, -1),
                new CatalogEntry.Index("u2", "t_name", "t", List.of("name"), t, -1),
                new CatalogEntry.View("u3", "v", null, new Schema(List.of(t.column(0), t.column(1))))));
    }

    static List<String[]> clientQueries() throws Exception {
        String all = new String(CatalogQueryTest.class.getResourceAsStream("/catalog/client-queries.sql").readAllBytes(), StandardCharsets.UTF_8);
        List<String[]> out = new ArrayList<>();
        for (String q : all.split("\n;;\n")) {
            if (q.isBlank()) {
                continue;
            }
            int nl = q.indexOf('\n');
            out.add(new String[] {q.substring(3, nl).trim(), q.substring(nl + 1)});
        }
        return out;
    }

    @Test
    void everyCapturedClientQueryRuns() throws Exception {
        List<String> failures = new ArrayList<>();
        for (String[] q : clientQueries()) {
            try {
                CatalogQuery cq = CatalogQuery.prepare(q[1], snapshot(), "tandem");
                List<Object> params = new ArrayList<>();
                for (int i = 0; i < cq.parameterCount(); i++) {
                    params.add(i == 0 ? "t" : "%");
                }
                SqlResult r = cq.execute(snapshot(), params);
                System.out.println("== " + q[0] + " " + cq.columns().stream().map(c -> c.name()).toList());
                for (Object[] row : r.rows()) {
                    System.out.println("   " + Arrays.toString(row));
                }
            } catch (RuntimeException e) {
                failures.add(q[0] + ": " + e + "\n" + q[1].substring(0, Math.min(200, q[1].length())));
            }
        }
        assertThat(failures).as(String.join("\n\n", failures)).isEmpty();
    }
}
