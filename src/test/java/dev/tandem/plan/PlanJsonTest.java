package dev.tandem.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.row.DatumType;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectMapper;

class PlanJsonTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Plan parse(String json) {
        return PlanJson.parse(JSON.readTree(json), "");
    }

    @Test
    void everyDocumentedFormParsesAndWritesBack() {
        String[] forms = {
            "{\"op\":\"get\",\"id\":\"u1\"}",
            "{\"op\":\"get\",\"name\":\"orders\"}",
            "{\"op\":\"constant\",\"rows\":[[1,\"a\"],[null,null]],\"types\":[\"int64\",\"string\"]}",
            "{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"map\":[{\"col\":0}],\"filter\":[{\"lit\":true,\"type\":\"bool\"}],\"project\":[1]}",
            "{\"op\":\"join\",\"inputs\":[{\"op\":\"get\",\"id\":\"u1\"},{\"op\":\"get\",\"id\":\"u2\"}],\"on\":[[[0,1],[1,0]]]}",
            "{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"group_key\":[0],\"aggregates\":[{\"func\":\"count\"},{\"func\":\"sum\",\"expr\":{\"col\":1}}]}",
            "{\"op\":\"top_k\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"group_key\":[0],\"order_by\":[{\"col\":1,\"desc\":true,\"nulls_last\":false}],\"limit\":3,\"offset\":1}",
            "{\"op\":\"window\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"partition_by\":[0],\"order_by\":[{\"col\":1,\"desc\":false,\"nulls_last\":true}],"
                    + "\"functions\":[{\"func\":\"row_number\"},{\"func\":\"lag\",\"expr\":{\"col\":1},\"offset\":2},{\"func\":\"count\"},{\"func\":\"sum\",\"expr\":{\"col\":0}}]}",
            "{\"op\":\"window\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"partition_by\":[],\"order_by\":[],\"functions\":[{\"func\":\"ntile\",\"offset\":3},"
                    + "{\"func\":\"lead\",\"expr\":{\"col\":1},\"offset\":1,\"default\":{\"col\":0}},{\"func\":\"nth_value\",\"expr\":{\"col\":1},\"offset\":2,"
                    + "\"frame\":{\"mode\":\"rows\",\"start\":-2,\"end\":1}},{\"func\":\"max\",\"expr\":{\"col\":0},\"frame\":{\"mode\":\"range\",\"start\":0}},"
                    + "{\"func\":\"percent_rank\"},{\"func\":\"cume_dist\"},{\"func\":\"var_samp\",\"expr\":{\"col\":1},"
                    + "\"frame\":{\"mode\":\"rows\",\"start\":-1,\"end\":1,\"exclude\":\"ties\"}}]}",
            "{\"op\":\"threshold\",\"input\":{\"op\":\"negate\",\"input\":{\"op\":\"get\",\"id\":\"u1\"}}}",
            "{\"op\":\"union\",\"inputs\":[{\"op\":\"get\",\"id\":\"u1\"},{\"op\":\"get\",\"id\":\"u1\"}]}",
            "{\"op\":\"arrange_by\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"key\":[1,0]}",
        };
        for (String f : forms) {
            assertThat(PlanJson.write(parse(f)).toString()).as(f).isEqualTo(f);
        }
    }

    @Test
    void optionalPartsTakeTheirDefaults() {
        assertThat(parse("{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"id\":\"u1\"}}"))
                .isEqualTo(new Plan.MapFilterProject(Plan.get("u1"), Mfp.identity()));
        assertThat(parse("{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"group_key\":[0]}"))
                .isEqualTo(new Plan.Reduce(Plan.get("u1"), List.of(0), List.of()));
        assertThat(parse("{\"op\":\"top_k\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"order_by\":[{\"col\":0},{\"col\":1,\"desc\":true}]}"))
                .isEqualTo(new Plan.TopK(Plan.get("u1"), List.of(),
                        List.of(new Plan.Ordering(0, false, true), new Plan.Ordering(1, true, false)), null, 0));
    }

    @Test
    void parseErrorsCarryThePath() {
        assertThatThrownBy(() -> parse("{\"op\":\"window\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"functions\":[{\"func\":\"median\"}]}"))
                .isInstanceOf(PlanException.class).hasMessageStartingWith("functions[0].func: unknown window function 'median'");
        assertThatThrownBy(() -> parse("{\"op\":\"window\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"functions\":[{\"func\":\"ntile\",\"offset\":0}]}"))
                .isInstanceOf(PlanException.class).hasMessage("functions[0].offset: ntile needs a positive \"offset\"");
        assertThatThrownBy(() -> parse("{\"op\":\"window\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"functions\":[{\"func\":\"min\",\"expr\":{\"col\":0},"
                + "\"frame\":{\"mode\":\"range\",\"start\":-1}}]}"))
                .isInstanceOf(PlanException.class).hasMessageStartingWith("functions[0].frame: a range frame's");
        assertThatThrownBy(() -> parse("{\"op\":\"window\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"functions\":[{\"func\":\"rank\",\"frame\":{\"mode\":\"rows\"}}]}"))
                .isInstanceOf(PlanException.class).hasMessage("functions[0].frame: rank takes no \"frame\"");
        assertThatThrownBy(() -> parse("{\"op\":\"window\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"functions\":[{\"func\":\"rank\",\"offset\":1}]}"))
                .isInstanceOf(PlanException.class).hasMessage("functions[0].offset: rank takes no \"offset\"");
        assertThatThrownBy(() -> parse("{\"op\":\"window\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"functions\":[{\"func\":\"lead\"}]}"))
                .isInstanceOf(PlanException.class).hasMessage("functions[0]: lead needs an \"expr\"");
        assertThatThrownBy(() -> parse("{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"filter\":[{\"call\":\"and\",\"args\":[{\"lit\":true},{\"call\":\"foo\"}]}]}"))
                .isInstanceOf(PlanException.class).hasMessage("filter[0].args[1]: unknown function 'foo'");
        assertThatThrownBy(() -> parse("{\"op\":\"union\",\"inputs\":[{\"op\":\"get\",\"id\":\"u1\"},{\"op\":\"scan\"}]}"))
                .hasMessageStartingWith("inputs[1].op: unknown operator 'scan'");
        assertThatThrownBy(() -> parse("{\"op\":\"get\"}")).hasMessage("a get needs exactly one of \"id\" and \"name\"");
        assertThatThrownBy(() -> parse("{\"op\":\"negate\"}")).hasMessage("missing field \"input\"");
        assertThatThrownBy(() -> parse("{\"op\":\"negate\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"extra\":1}")).hasMessageStartingWith("unknown field 'extra'");
        assertThatThrownBy(() -> parse("{\"op\":\"constant\",\"rows\":[[1],[\"x\"]],\"types\":[\"int64\"]}"))
                .hasMessageStartingWith("rows[1]: column 'c0': expected int64");
        assertThatThrownBy(() -> parse("{\"op\":\"constant\",\"rows\":[],\"types\":[\"int\"]}")).hasMessageStartingWith("types[0]: unknown type 'int'");
        assertThatThrownBy(() -> parse("{\"op\":\"join\",\"inputs\":[],\"on\":[[[0,1],[1]]]}")).hasMessageStartingWith("on[0][1]: expected an [input, column] pair");
        assertThatThrownBy(() -> parse("{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"aggregates\":[{\"func\":\"avg\",\"expr\":{\"col\":0}}]}"))
                .hasMessageStartingWith("aggregates[0].func: unknown aggregate 'avg'");
        assertThatThrownBy(() -> parse("{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"aggregates\":[{\"func\":\"sum\"}]}"))
                .hasMessage("aggregates[0]: sum needs an \"expr\"");
        assertThatThrownBy(() -> parse("{\"op\":\"top_k\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"limit\":-1}")).hasMessageStartingWith("limit: expected a non-negative integer");
        assertThatThrownBy(() -> parse("{\"op\":\"top_k\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"order_by\":[{\"col\":0,\"desc\":\"yes\"}]}"))
                .hasMessageStartingWith("order_by[0].desc: expected true or false");
    }

    @Test
    void namesResolveToIds() {
        Plan p = new Plan.Join(List.of(Plan.getByName("orders"), new Plan.Negate(Plan.getByName("items"))), List.of());
        Map<String, String> ids = Map.of("orders", "u1", "items", "u2");
        assertThat(p.resolveNames(ids::get, "")).isEqualTo(new Plan.Join(List.of(Plan.get("u1"), new Plan.Negate(Plan.get("u2"))), List.of()));
        assertThatThrownBy(() -> p.resolveNames(Map.of("orders", "u1")::get, "plan"))
                .isInstanceOf(PlanException.class).hasMessage("plan.inputs[1].input.name: unknown name 'items'");
        assertThatThrownBy(() -> p.types(id -> List.of(DatumType.INT64), ""))
                .hasMessage("inputs[0].name: unresolved name 'orders'; names must be resolved to ids first");
    }

    @Test
    void typeErrorsCarryThePath() {
        Map<String, List<DatumType>> types = Map.of("u1", List.of(DatumType.INT64, DatumType.STRING), "u2", List.of(DatumType.STRING));
        assertThatThrownBy(() -> Plan.get("u9").types(types::get, "p")).hasMessage("p.id: unknown id 'u9'");
        assertThatThrownBy(() -> new Plan.Join(List.of(Plan.get("u1"), Plan.get("u2")), List.of(List.of(new Plan.JoinColumn(0, 0), new Plan.JoinColumn(1, 0))))
                .types(types::get, "")).hasMessage("on[0][1]: [1, 0] is string but the class's first column is int64");
        assertThatThrownBy(() -> new Plan.Join(List.of(Plan.get("u1"), Plan.get("u2")), List.of(List.of(new Plan.JoinColumn(0, 0), new Plan.JoinColumn(1, 3))))
                .types(types::get, "")).hasMessage("on[0][1]: column 3 does not exist; input 1 has 1 columns");
        assertThatThrownBy(() -> new Plan.Join(List.of(Plan.get("u1"), Plan.get("u2")), List.of(List.of(new Plan.JoinColumn(0, 0), new Plan.JoinColumn(2, 0))))
                .types(types::get, "")).hasMessage("on[0][1]: input 2 does not exist; the join has 2 inputs");
        assertThatThrownBy(() -> new Plan.Join(List.of(Plan.get("u1")), List.of()).types(types::get, "")).hasMessage("inputs: a join needs at least two inputs, got 1");
        assertThatThrownBy(() -> new Plan.Window(Plan.get("u1"), List.of(), List.of(), List.of(new Plan.WindowFunc(Plan.WindowKind.SUM, Expr.col(1), 0)))
                .types(types::get, "")).hasMessage("functions[0]: sum needs int64, float64 or numeric, got string");
        assertThatThrownBy(() -> new Plan.Window(Plan.get("u1"), List.of(2), List.of(), List.of()).types(types::get, ""))
                .hasMessage("partition_by[0]: column 2 does not exist; the input has 2 columns");
        assertThat(new Plan.Window(Plan.get("u1"), List.of(0), List.of(new Plan.Ordering(1, false, true)), List.of(
                new Plan.WindowFunc(Plan.WindowKind.RANK, null, 0), new Plan.WindowFunc(Plan.WindowKind.LEAD, Expr.col(1), 1))).types(types::get, ""))
                .containsExactly(DatumType.INT64, DatumType.STRING, DatumType.INT64, DatumType.STRING);
        assertThatThrownBy(() -> new Plan.Union(List.of(Plan.get("u1"), Plan.get("u2"))).types(types::get, ""))
                .hasMessage("inputs[1]: union input has types [string], expected [int64, string] like inputs[0]");
        assertThatThrownBy(() -> new Plan.Reduce(Plan.get("u1"), List.of(2), List.of()).types(types::get, ""))
                .hasMessage("group_key[0]: column 2 does not exist; the input has 2 columns");
        assertThatThrownBy(() -> new Plan.Reduce(Plan.get("u1"), List.of(), List.of(new Plan.Aggregate(AggregateFunc.SUM, Expr.col(1)))).types(types::get, ""))
                .hasMessage("aggregates[0]: sum needs int64, float64 or numeric, got string");
        assertThatThrownBy(() -> new Plan.Reduce(Plan.get("u1"), List.of(), List.of(new Plan.Aggregate(AggregateFunc.MIN, Expr.call(Func.NOT, Expr.col(0))))).types(types::get, ""))
                .hasMessage("aggregates[0].expr.args[0]: function 'not' needs bool, got int64");
        assertThatThrownBy(() -> new Plan.TopK(Plan.get("u1"), List.of(), List.of(new Plan.Ordering(5, false, true)), 1L, 0).types(types::get, ""))
                .hasMessage("order_by[0].col: column 5 does not exist; the input has 2 columns");
        assertThatThrownBy(() -> new Plan.ArrangeBy(new Plan.MapFilterProject(Plan.get("u1"), Mfp.project(List.of(0))), List.of(1)).types(types::get, ""))
                .hasMessage("key[0]: column 1 does not exist; the input has 1 columns");
        assertThatThrownBy(() -> new Plan.Negate(new Plan.MapFilterProject(Plan.get("u1"), Mfp.filter(List.of(Expr.col(1))))).types(types::get, ""))
                .hasMessage("input.filter[0]: a filter predicate must be bool, got string");
        assertThat(new Plan.Reduce(Plan.get("u1"), List.of(1), List.of(new Plan.Aggregate(AggregateFunc.COUNT, null),
                new Plan.Aggregate(AggregateFunc.MAX, Expr.col(1)))).types(types::get, "")).containsExactly(DatumType.STRING, DatumType.INT64, DatumType.STRING);
    }

    @Provide
    Arbitrary<RandomPlans.Scenario> scenarios() {
        return RandomPlans.scenarios(false);
    }

    @Property(tries = 200)
    void randomPlansRoundTrip(@ForAll("scenarios") RandomPlans.Scenario s) {
        String text = PlanJson.write(s.plan()).toString();
        Plan back = parse(text);
        assertThat(back).isEqualTo(s.plan());
        assertThat(PlanJson.write(back).toString()).isEqualTo(text);
        assertThat(back.types(s.types()::get, "")).isEqualTo(s.plan().types(s.types()::get, ""));
    }

    @Test
    void dependenciesAreListedOnceInOrder() {
        Plan p = new Plan.Union(List.of(Plan.get("b"), new Plan.Join(List.of(Plan.get("a"), Plan.get("b")), List.of())));
        assertThat(p.dependencies()).containsExactly("b", "a");
    }
}
