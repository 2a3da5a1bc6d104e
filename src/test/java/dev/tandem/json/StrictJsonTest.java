package dev.tandem.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The shared reader: Jackson's strictness, each check's message, and the codec's own exception and wording. */
class StrictJsonTest {

    /** A codec's exception, to see that the reader throws what the codec asked for. */
    static final class BadJson extends RuntimeException {
        final String path;
        final String reason;

        BadJson(String path, String reason) {
            super(path + ": " + reason);
            this.path = path;
            this.reason = reason;
        }
    }

    private final StrictJson json = new StrictJson(BadJson::new);

    private static JsonNode parse(String text) {
        return StrictJson.MAPPER.readTree(text.replace('\'', '"'));
    }

    @Test
    void duplicateKeysAndTrailingTokensAreMalformed() {
        assertThatThrownBy(() -> json.tree("{\"a\": 1, \"a\": 2}", "$"))
                .isInstanceOf(BadJson.class)
                .hasMessageStartingWith("$: malformed JSON at line 1, column ")
                .hasMessageContaining("Duplicate Object property \"a\"");
        assertThatThrownBy(() -> json.tree("{\"a\": 1} {}", "$"))
                .isInstanceOf(BadJson.class)
                .hasMessageStartingWith("$: malformed JSON at line 1, column ");
        assertThat(json.tree("{\"a\": [1, 2]}", "$").get("a").size()).isEqualTo(2);
    }

    @Test
    void fieldsRefusesAnUnknownFieldNamingTheAllowedOnesSorted() {
        assertThatThrownBy(() -> json.fields(parse("{'b': 1, 'x': 2}"), "$.p", "b", "a"))
                .isInstanceOf(BadJson.class)
                .hasMessage("$.p: unknown field 'x'; expected a, b");
        assertThatThrownBy(() -> json.fields(parse("[1]"), "$.p", "a"))
                .hasMessage("$.p: expected an object, got array [1]");
    }

    @Test
    void objectFieldsReadRequiredAndOptionalValuesWithTheirPaths() {
        StrictJson.Obj o = json.fields(parse("{'s': 'x', 'n': 7, 'z': null}"), "$", "s", "n", "z", "absent");
        assertThat(o.string("s")).isEqualTo("x");
        assertThat(o.nonNegativeLong("n")).isEqualTo(7L);
        assertThat(o.optional("z")).isNull();
        assertThat(o.optionalString("absent")).isNull();
        assertThat(o.optionalNonNegativeLong("z")).isNull();
        assertThatThrownBy(() -> o.required("absent")).hasMessage("$: missing field \"absent\"");
        assertThatThrownBy(() -> o.string("n")).hasMessage("$.n: expected a string, got number 7");
        assertThatThrownBy(() -> o.nonNegativeLong("s")).hasMessage("$.s: expected a non-negative integer, got string \"x\"");
    }

    @Test
    void integersAreCheckedAgainstTheirRange() {
        assertThat(json.nonNegativeLong(parse("9223372036854775807"), "t")).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> json.nonNegativeLong(parse("9223372036854775808"), "t"))
                .hasMessage("t: expected a non-negative integer, got number 9223372036854775808");
        assertThatThrownBy(() -> json.nonNegativeLong(parse("-1"), "t")).hasMessage("t: expected a non-negative integer, got number -1");
        assertThatThrownBy(() -> json.nonNegativeLong(parse("1.0"), "t")).hasMessage("t: expected a non-negative integer, got number 1.0");
        assertThat(json.nonNegativeInt(parse("2147483647"), "i")).isEqualTo(Integer.MAX_VALUE);
        assertThatThrownBy(() -> json.nonNegativeInt(parse("2147483648"), "i"))
                .hasMessage("i: expected a non-negative integer, got number 2147483648");
        assertThatThrownBy(() -> json.bool(parse("1"), "b")).hasMessage("b: expected true or false, got number 1");
    }

    @Test
    void valuesAreDescribedByTypeAndAbbreviatedText() {
        assertThat(StrictJson.describe(null)).isEqualTo("nothing");
        assertThat(StrictJson.describe(parse("null"))).isEqualTo("null null");
        String longText = "a".repeat(50);
        assertThat(StrictJson.describe(parse("'" + longText + "'"))).isEqualTo("string \"" + "a".repeat(39) + "...");
        StrictJson worded = new StrictJson(BadJson::new, n -> "<" + n + ">");
        assertThatThrownBy(() -> worded.array(parse("{}"), "p", "a list")).hasMessage("p: expected a list, got <{}>");
        assertThatThrownBy(() -> json.object(null, "p", "an object")).hasMessage("p: expected an object, got nothing");
    }

    @Test
    void pathsJoinMembersAndIndexes() {
        assertThat(StrictJson.child("", "a")).isEqualTo("a");
        assertThat(StrictJson.child("$", "a")).isEqualTo("$.a");
        assertThat(StrictJson.index(StrictJson.child("a", "b"), 2)).isEqualTo("a.b[2]");
        assertThat(StrictJson.index(null, 0)).isEqualTo("[0]");
    }

    @Test
    void onlyFieldsAcceptsASubsetOfTheAllowed() {
        json.onlyFields(parse("{'a': 1}"), "$", Set.of("a", "b"));
        json.onlyFields(parse("{}"), "$", Set.of());
    }
}
