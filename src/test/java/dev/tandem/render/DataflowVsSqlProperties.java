package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.plan.PlanEvaluator;
import dev.tandem.plan.PlanJson;
import dev.tandem.plan.SqlTranslator;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.runtime.FatalErrorHandler;
import dev.tandem.runtime.SchedulerWorkerPool;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Random SQL-compatible plans over random update streams, rendered with two workers: at {@code as_of}
 * and at every later write, the export equals the same query run on H2 over the tables' contents at
 * that time, and has no errors.
 */
class DataflowVsSqlProperties {

    private static final List<Throwable> FATAL = new CopyOnWriteArrayList<>();
    private static Scheduler ticks;
    private static SchedulerWorkerPool pool;
    private static Connection conn;

    @BeforeContainer
    static void start() throws SQLException {
        ticks = Schedulers.newSingle("vs-sql-ticks");
        FatalErrorHandler record = (where, error) -> FATAL.add(error);
        pool = new SchedulerWorkerPool("vs-sql", Schedulers.newBoundedElastic(2, 100_000, "vs-sql"), 2, record);
        conn = DriverManager.getConnection("jdbc:h2:mem:dataflow_vs_sql;DB_CLOSE_DELAY=-1");
    }

    @AfterContainer
    static void stop() throws SQLException {
        conn.close();
        pool.dispose();
        ticks.dispose();
    }

    @Property(tries = 150, shrinking = ShrinkingMode.OFF)
    void exportsEqualH2AtEveryTime(@ForAll long seed) throws SQLException {
        try (StreamedScenario s = new StreamedScenario(seed, true, false, List.of(pool), ticks, () -> !FATAL.isEmpty())) {
            assertThat(FATAL).as("fatal errors in workers").isEmpty();
            assertThat(SqlTranslator.supports(s.scenario.plan())).as("generated plan is SQL-compatible").isTrue();
            SqlTranslator translator = new SqlTranslator(s.scenario.types()::get);
            String plan = PlanJson.write(s.scenario.plan()).toString();
            boolean anyRows = false;
            for (long t : s.checkedTimes()) {
                for (Map.Entry<String, Map<Row, Long>> e : s.contentsAt(t).entrySet()) {
                    List<DatumType> types = s.scenario.types().get(e.getKey());
                    SqlTranslator.load(conn, e.getKey(), types, e.getValue());
                }
                Map<Row, Long> sql = translator.query(conn, s.scenario.plan());
                PlanEvaluator.Result rendered = s.actual(0, t);
                assertThat(rendered.errors()).as("errors at %d of %s", t, plan).isEmpty();
                assertThat(rendered.rows()).as("at %d (as_of %d) plan %s\nsql %s", t, s.asOf, plan, translator.sql(s.scenario.plan()))
                        .isEqualTo(sql);
                anyRows |= !sql.isEmpty();
            }
            Statistics.label("root").collect(s.scenario.plan().getClass().getSimpleName());
            Statistics.label("output").collect(anyRows ? "rows" : "empty");
        }
    }
}
