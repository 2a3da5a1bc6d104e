package dev.tandem.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** Default column names keep the inputs' names and name aggregates after their function. */
class PlanNamesTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final Map<String, List<String>> COLUMNS = Map.of("t", List.of("g", "v", "w"), "u", List.of("g", "name"));

    static List<String> names(String plan) {
        return PlanNames.of(PlanJson.parse(JSON.readTree(plan), "plan"), COLUMNS::get);
    }

    @Test
    void aReduceKeepsItsGroupKeyAndNamesAggregatesAfterTheirFunction() {
        assertThat(names("{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"name\":\"t\"},\"group_key\":[0],\"aggregates\":["
                + "{\"func\":\"count\"},{\"func\":\"sum\",\"expr\":{\"col\":1}},{\"func\":\"max\",\"expr\":{\"col\":2}},"
                + "{\"func\":\"count\",\"expr\":{\"col\":1}}]}"))
                .containsExactly("g", "count", "sum_v", "max_w", "count_v");
    }

    @Test
    void projectionsMapsAndJoinsKeepTheirInputsNames() {
        assertThat(names("{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"name\":\"t\"},\"project\":[2,0]}")).containsExactly("w", "g");
        assertThat(names("{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"name\":\"t\"},\"map\":[{\"col\":1},{\"call\":\"add\",\"args\":[{\"col\":1},{\"col\":2}]}]}"))
                .containsExactly("g", "v", "w", "v_4", "c4");
        assertThat(names("{\"op\":\"join\",\"inputs\":[{\"op\":\"get\",\"name\":\"t\"},{\"op\":\"get\",\"name\":\"u\"}],\"on\":[[[0,0],[1,0]]]}"))
                .containsExactly("g", "v", "w", "g_4", "name");
        assertThat(names("{\"op\":\"top_k\",\"input\":{\"op\":\"get\",\"name\":\"u\"},\"order_by\":[{\"col\":1}],\"limit\":1}"))
                .containsExactly("g", "name");
        assertThat(names("{\"op\":\"constant\",\"rows\":[[1,\"a\"]],\"types\":[\"int64\",\"string\"]}")).containsExactly("c0", "c1");
    }

    @Test
    void repeatedNamesGetTheirPosition() {
        assertThat(PlanNames.unique(List.of("a", "a", "b", "a_2"))).containsExactly("a", "a_2", "b", "a_2_4");
    }
}
