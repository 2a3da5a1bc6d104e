package dev.tandem.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** The naive evaluator agrees with H2, as multisets, on random SQL-compatible plans over random data with NULLs and duplicates. */
class PlanVsSqlProperties {

    private static Connection conn;

    @BeforeContainer
    static void open() throws SQLException {
        conn = DriverManager.getConnection("jdbc:h2:mem:plan_vs_sql;DB_CLOSE_DELAY=-1");
    }

    @AfterContainer
    static void close() throws SQLException {
        conn.close();
    }

    @Provide
    Arbitrary<RandomPlans.Scenario> scenarios() {
        return RandomPlans.scenarios(true);
    }

    @Property(tries = 500)
    void naiveEvaluationEqualsH2(@ForAll("scenarios") RandomPlans.Scenario s) throws SQLException {
        assertThat(SqlTranslator.supports(s.plan())).as("generated plan is SQL-compatible").isTrue();
        for (Map.Entry<String, List<DatumType>> e : s.types().entrySet()) {
            SqlTranslator.load(conn, e.getKey(), e.getValue(), s.data().get(e.getKey()));
        }
        PlanEvaluator.Result naive = PlanEvaluator.evaluate(s.plan(), s.types()::get, s.data());
        SqlTranslator translator = new SqlTranslator(s.types()::get);
        Map<Row, Long> sql;
        try {
            sql = translator.query(conn, s.plan());
        } catch (org.h2.jdbc.JdbcSQLSyntaxErrorException e) {
            // H2 itself mistypes a few valid queries: inlining nested subqueries it takes a column for another of the same
            // name at an inner level ("Values of types BOOLEAN and CHARACTER VARYING are not comparable" of a comparison of
            // two booleans). Such a try has no oracle; jqwik fails the property if too many tries are set aside.
            Assume.that(!e.getMessage().contains("are not comparable"));
            throw e;
        }
        Statistics.label("root").collect(s.plan().getClass().getSimpleName());
        Statistics.label("result").collect(sql.isEmpty() ? "empty" : sql.size() < 4 ? "1-3 rows" : "4+ rows");
        assertThat(naive.errors()).as("errors of %s", PlanJson.write(s.plan())).isEmpty();
        assertThat(naive.rows()).as("plan %s\nsql %s", PlanJson.write(s.plan()), new SqlTranslator(s.types()::get).sql(s.plan()))
                .isEqualTo(sql);
    }
}
