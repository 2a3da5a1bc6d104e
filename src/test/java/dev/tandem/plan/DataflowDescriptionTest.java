package dev.tandem.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.DatumType;
import dev.tandem.time.Frontier;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectMapper;

class DataflowDescriptionTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String SOURCES = "\"source_imports\":{\"u1\":{\"columns\":[{\"name\":\"k\",\"type\":\"int64\",\"nullable\":false},"
            + "{\"name\":\"v\",\"type\":\"string\",\"nullable\":true}]}},"
            + "\"index_imports\":{\"u2\":{\"on\":\"u0\",\"key\":[0],\"schema\":{\"columns\":[{\"name\":\"k\",\"type\":\"int64\",\"nullable\":true}]}}}";

    private static DataflowDescription parse(String json) {
        return DataflowJson.parse(JSON.readTree(json));
    }

    private static DataflowDescription with(String objects, String exports) {
        return parse("{" + SOURCES + ",\"objects_to_build\":[" + objects + "],\"index_exports\":[" + exports + "],\"as_of\":10}");
    }

    private static final String T1 = "{\"id\":\"t1\",\"plan\":{\"op\":\"join\",\"inputs\":[{\"op\":\"get\",\"id\":\"u1\"},{\"op\":\"get\",\"id\":\"u2\"}],\"on\":[[[0,0],[1,0]]]}}";

    @Test
    void roundTripAndValidTypes() {
        String text = "{" + SOURCES + ",\"objects_to_build\":[" + T1 + ",{\"id\":\"t2\",\"plan\":{\"op\":\"get\",\"id\":\"t1\"}}],"
                + "\"index_exports\":[{\"id\":\"u5\",\"object\":\"t2\",\"key\":[1]}],\"as_of\":10,\"until\":11}";
        DataflowDescription d = parse(text);
        assertThat(DataflowJson.write(d).toString()).isEqualTo(text);
        assertThat(parse(DataflowJson.write(d).toString())).isEqualTo(d);
        assertThat(d.validate()).isEqualTo(Map.of(
                "t1", List.of(DatumType.INT64, DatumType.STRING, DatumType.INT64),
                "t2", List.of(DatumType.INT64, DatumType.STRING, DatumType.INT64)));
        assertThat(d.until()).isEqualTo(11L);
        assertThat(parse("{\"as_of\":3}").validate()).isEmpty();
    }

    @Test
    void unknownId() {
        assertThatThrownBy(() -> with("{\"id\":\"t1\",\"plan\":{\"op\":\"get\",\"id\":\"u9\"}}", "").validate())
                .isInstanceOf(PlanException.class).hasMessage("objects_to_build[0].plan.id: unknown id 'u9'");
    }

    @Test
    void cycleAmongObjects() {
        assertThatThrownBy(() -> with("{\"id\":\"t1\",\"plan\":{\"op\":\"get\",\"id\":\"t2\"}},{\"id\":\"t2\",\"plan\":{\"op\":\"negate\",\"input\":{\"op\":\"get\",\"id\":\"t1\"}}}", "").validate())
                .hasMessage("objects_to_build[0].plan: cycle among objects: t1 -> t2 -> t1");
        assertThatThrownBy(() -> with("{\"id\":\"t1\",\"plan\":{\"op\":\"get\",\"id\":\"t1\"}}", "").validate())
                .hasMessage("objects_to_build[0].plan: cycle among objects: t1 -> t1");
    }

    @Test
    void objectUsedBeforeItIsBuilt() {
        assertThatThrownBy(() -> with("{\"id\":\"t1\",\"plan\":{\"op\":\"get\",\"id\":\"t2\"}},{\"id\":\"t2\",\"plan\":{\"op\":\"get\",\"id\":\"u1\"}}", "").validate())
                .hasMessage("objects_to_build[0].plan: object 't2' is used before it is built (objects_to_build[1])");
    }

    @Test
    void duplicateObjectId() {
        assertThatThrownBy(() -> with(T1 + "," + T1, "").validate())
                .hasMessage("objects_to_build[1].id: duplicate id 't1', also objects_to_build[0].id");
        assertThatThrownBy(() -> with("{\"id\":\"u1\",\"plan\":{\"op\":\"get\",\"id\":\"u2\"}}", "").validate())
                .hasMessage("objects_to_build[0].id: duplicate id 'u1', also source_imports.u1");
    }

    @Test
    void duplicateExportId() {
        assertThatThrownBy(() -> with(T1, "{\"id\":\"u5\",\"object\":\"t1\",\"key\":[0]},{\"id\":\"u5\",\"object\":\"t1\",\"key\":[1]}").validate())
                .hasMessage("index_exports[1].id: duplicate export id 'u5'");
        assertThatThrownBy(() -> with(T1, "{\"id\":\"t1\",\"object\":\"t1\",\"key\":[0]}").validate())
                .hasMessage("index_exports[0].id: export id 't1' is already used by objects_to_build[0].id");
    }

    @Test
    void exportOfUnknownObject() {
        assertThatThrownBy(() -> with(T1, "{\"id\":\"u5\",\"object\":\"u1\",\"key\":[0]}").validate())
                .hasMessage("index_exports[0].object: unknown object 'u1'; an export indexes one of objects_to_build");
    }

    @Test
    void badKeyColumns() {
        assertThatThrownBy(() -> with(T1, "{\"id\":\"u5\",\"object\":\"t1\",\"key\":[0,3]}").validate())
                .hasMessage("index_exports[0].key[1]: column 3 does not exist; the input has 3 columns");
        assertThatThrownBy(() -> parse("{\"index_imports\":{\"u2\":{\"on\":\"u0\",\"key\":[1],\"schema\":{\"columns\":[{\"name\":\"k\",\"type\":\"int64\"}]}}},\"as_of\":0}").validate())
                .hasMessage("index_imports.u2.key[0]: column 1 does not exist; the input has 1 columns");
    }

    @Test
    void typeMismatchInAnObject() {
        assertThatThrownBy(() -> with("{\"id\":\"t1\",\"plan\":{\"op\":\"union\",\"inputs\":[{\"op\":\"get\",\"id\":\"u1\"},{\"op\":\"get\",\"id\":\"u2\"}]}}", "").validate())
                .hasMessage("objects_to_build[0].plan.inputs[1]: union input has types [int64], expected [int64, string] like inputs[0]");
    }

    @Test
    void untilNotAfterAsOf() {
        assertThatThrownBy(() -> parse("{\"as_of\":10,\"until\":10}").validate()).hasMessage("until: until 10 must be greater than as_of 10");
    }

    @Test
    void malformedJson() {
        assertThatThrownBy(() -> parse("{\"as_of\":10,\"objects_to_build\":[{\"id\":\"t1\",\"plan\":{\"op\":\"get\",\"id\":3}}]}"))
                .hasMessageStartingWith("objects_to_build[0].plan.id: expected a string");
        assertThatThrownBy(() -> parse("{\"objects_to_build\":[]}")).hasMessage("missing field \"as_of\"");
        assertThatThrownBy(() -> parse("{\"as_of\":1,\"source_imports\":{\"u1\":{\"columns\":[{\"name\":\"a\",\"type\":\"int64\"},{\"name\":\"a\",\"type\":\"bool\"}]}}}"))
                .hasMessage("source_imports.u1.columns: duplicate column name 'a'");
        assertThatThrownBy(() -> parse("{\"as_of\":1,\"asof\":2}")).hasMessageStartingWith("unknown field 'asof'");
    }

    @Test
    void asOfBeforeAnImportsSince() {
        DataflowDescription d = with(T1, "");
        d.validateSince(id -> Frontier.at(10));
        assertThatThrownBy(() -> d.validateSince(id -> id.equals("u2") ? Frontier.at(11) : Frontier.MIN))
                .isInstanceOf(PlanException.class).hasMessage("index_imports.u2: as_of 10 is before the since {11} of 'u2'");
        assertThatThrownBy(() -> d.validateSince(id -> id.equals("u1") ? Frontier.EMPTY : Frontier.MIN))
                .hasMessage("source_imports.u1: collection 'u1' has been dropped");
        assertThatThrownBy(() -> d.validateSince(id -> null)).hasMessage("source_imports.u1: unknown collection 'u1'");
    }
}
