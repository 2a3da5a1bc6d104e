package dev.tandem.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link Jsonb}'s input and normal form (PostgreSQL 15's answers), and its order against a naive model of PostgreSQL's
 * {@code compareJsonbContainers}: a walk over both documents' token streams.
 */
class JsonbProperties {

    /** Random documents, written with duplicate keys, exponents, trailing zeros, escapes and random whitespace, then parsed. */
    static Arbitrary<Jsonb> documents() {
        return text(3).map(Jsonb::parse);
    }

    private static Arbitrary<String> text(int depth) {
        Arbitrary<String> scalar = Arbitraries.oneOf(
                Arbitraries.of("null", "true", "false", "0", "-0", "1", "1.0", "1.00", "-1", "2.5", "1e2", "1E-2", "-3.10e1", "10", "9",
                        "\"\"", "\"a\"", "\"b\"", "\"ab\"", "\"é\"", "\"\\u00e9\"", "\"\\ud83d\\ude00\"", "\"\\n\\t\\\"\"", "\"\\u0001\"",
                        "\"\\/\"", "\"a b\"", "\"\uFFFF\"", "\"\uD83D\uDE00\""));
        if (depth == 0) {
            return scalar;
        }
        Arbitrary<String> element = text(depth - 1);
        Arbitrary<String> array = element.list().ofMaxSize(3).map(l -> "[" + String.join(" ,\n", l) + "]");
        Arbitrary<String> key = Arbitraries.of("a", "b", "aa", "ab", "é", "", "B", "\\u0061");
        Arbitrary<String> object = net.jqwik.api.Combinators.combine(key, element).as((k, v) -> "\"" + k + "\" :" + v).list().ofMaxSize(4)
                .map(l -> "{ " + String.join(",", l) + "\t}");
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, scalar), net.jqwik.api.Tuple.of(2, array), net.jqwik.api.Tuple.of(2, object));
    }

    @Provide
    Arbitrary<Jsonb> docs() {
        return documents();
    }

    @Property(tries = 1000)
    void textReadsBackAsItself(@ForAll("docs") Jsonb j) {
        Jsonb again = Jsonb.parse(j.text());
        assertThat(again.text()).isEqualTo(j.text());
        assertThat(again.compareTo(j)).isZero();
    }

    @Property(tries = 3000)
    void orderIsPostgresqls(@ForAll("docs") Jsonb a, @ForAll("docs") Jsonb b) {
        int model = Integer.signum(NaiveOrder.compare(a.tree(), b.tree()));
        assertThat(Integer.signum(a.compareValue(b))).as("%s vs %s", a, b).isEqualTo(model);
        // the packed order refines it: equal documents by text
        int packed = Integer.signum(Row.of(a).compareTo(Row.of(b)));
        assertThat(packed).isEqualTo(Integer.signum(a.compareTo(b)));
        if (model != 0) {
            assertThat(packed).isEqualTo(model);
        }
        assertThat(Row.of(a).unpack()[0]).isEqualTo(a);
    }

    @Example
    void normalFormIsPostgresqls() {
        // each pair: PostgreSQL 15's output of the input
        Map<String, String> answers = new java.util.LinkedHashMap<>();
        answers.put("{\"b\":1,\"a\":[1,2.50,1e2,-0.0, 1E-2],\"aa\":null,\"a\":3, \"s\":\"x\\u00e9\\n\\u0001\\\\\\\"/\"}",
                "{\"a\": 3, \"b\": 1, \"s\": \"xé\\n\\u0001\\\\\\\"/\", \"aa\": null}");
        answers.put(" [ ] ", "[]");
        answers.put("{}", "{}");
        answers.put("1.50", "1.50");
        answers.put("1e2", "100");
        answers.put("-1.5E-3", "-0.0015");
        answers.put("\"\\ud83d\\ude00\"", "\"\uD83D\uDE00\"");
        answers.put("{\"aaa\":1,\"b\":2,\"ab\":3,\"a\":{\"z\":[true,false,null]}}", "{\"a\": {\"z\": [true, false, null]}, \"b\": 2, \"ab\": 3, \"aaa\": 1}");
        answers.forEach((in, out) -> assertThat(Jsonb.parse(in).text()).as(in).isEqualTo(out));
    }

    @Example
    void invalidInputIsRefused() {
        for (String bad : List.of("", "01", "1.", ".5", "-", "+1", "[1,]", "{\"a\"}", "{a:1}", "'a'", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"",
                "tru", "nul", "[1] 2", "\"a\nb\"", "1e", "{\"a\":1,}", "NaN", "Infinity")) {
            assertThatThrownBy(() -> Jsonb.parse(bad)).as(bad).isInstanceOf(Jsonb.SyntaxError.class)
                    .extracting(e -> ((Jsonb.SyntaxError) e).problem()).isEqualTo(Jsonb.Problem.SYNTAX);
        }
        assertThatThrownBy(() -> Jsonb.parse("\"\\u0000\"")).extracting(e -> ((Jsonb.SyntaxError) e).problem())
                .isEqualTo(Jsonb.Problem.UNSUPPORTED_ESCAPE);
    }

    @Example
    void orderQuirksArePostgresqls() {
        // PostgreSQL 15: '[]' < '1', '[1]' > '1', '{}' > '[1,2]', '1.0' = '1.00'
        assertThat(Jsonb.parse("[]").compareValue(Jsonb.parse("1"))).isNegative();
        assertThat(Jsonb.parse("[1]").compareValue(Jsonb.parse("1"))).isPositive();
        assertThat(Jsonb.parse("{}").compareValue(Jsonb.parse("[1, 2]"))).isPositive();
        assertThat(Jsonb.parse("1.0").compareValue(Jsonb.parse("1.00"))).isZero();
        assertThat(Jsonb.parse("true").compareValue(Jsonb.parse("2"))).isPositive();
        assertThat(Jsonb.parse("\"z\"").compareValue(Jsonb.parse("2"))).isNegative();
    }

    /** PostgreSQL's comparison of two documents as it walks their token streams (src/backend/utils/adt/jsonb_util.c). */
    static final class NaiveOrder {

        enum R { BEGIN_ARRAY, BEGIN_OBJECT, END_ARRAY, END_OBJECT, KEY, VALUE, ELEM }

        record Tok(R r, int type, Object value, int count, boolean raw) {
        }

        static int compare(Object a, Object b) {
            List<Tok> x = tokens(a);
            List<Tok> y = tokens(b);
            for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
                Tok p = x.get(i);
                Tok q = y.get(i);
                if (p.r() == q.r()) {
                    int res = 0;
                    switch (p.r()) {
                        case BEGIN_ARRAY -> {
                            if (p.raw() != q.raw()) {
                                res = p.raw() ? -1 : 1;
                            }
                            if (p.count() != q.count()) {
                                res = p.count() > q.count() ? 1 : -1;
                            }
                        }
                        case BEGIN_OBJECT -> res = Integer.compare(p.count(), q.count());
                        case KEY, VALUE, ELEM -> res = p.type() != q.type() ? Integer.compare(p.type(), q.type()) : scalar(p.value(), q.value());
                        default -> {
                        }
                    }
                    if (res != 0) {
                        return res;
                    }
                } else {
                    return Integer.compare(p.type(), q.type());
                }
            }
            return 0;
        }

        private static int scalar(Object a, Object b) {
            if (a instanceof String s) {
                byte[] x = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                byte[] y = ((String) b).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                return java.util.Arrays.compareUnsigned(x, y);
            }
            if (a instanceof BigDecimal d) {
                return d.compareTo((BigDecimal) b);
            }
            if (a instanceof Boolean t) {
                return Boolean.compare(t, (Boolean) b);
            }
            return 0;
        }

        private static List<Tok> tokens(Object root) {
            List<Tok> out = new ArrayList<>();
            if (root instanceof List || root instanceof Map) {
                walk(root, R.ELEM, out);
            } else {
                out.add(new Tok(R.BEGIN_ARRAY, 0x10, null, 1, true));
                walk(root, R.ELEM, out);
                out.add(new Tok(R.END_ARRAY, 0x10, null, 0, true));
            }
            return out;
        }

        private static void walk(Object v, R as, List<Tok> out) {
            if (v instanceof List<?> l) {
                out.add(new Tok(R.BEGIN_ARRAY, 0x10, null, l.size(), false));
                l.forEach(e -> walk(e, R.ELEM, out));
                out.add(new Tok(R.END_ARRAY, 0x10, null, 0, false));
            } else if (v instanceof Map<?, ?> m) {
                out.add(new Tok(R.BEGIN_OBJECT, 0x11, null, m.size(), false));
                m.forEach((k, e) -> {
                    out.add(new Tok(R.KEY, 1, k, 0, false));
                    walk(e, R.VALUE, out);
                });
                out.add(new Tok(R.END_OBJECT, 0x11, null, 0, false));
            } else {
                int type = v instanceof String ? 1 : v instanceof BigDecimal ? 2 : v instanceof Boolean ? 3 : 0;
                out.add(new Tok(as, type, v, 0, false));
            }
        }
    }
}
