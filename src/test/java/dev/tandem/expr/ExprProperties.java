package dev.tandem.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.plan.RandomPlans;
import dev.tandem.row.DatumType;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tools.jackson.databind.ObjectMapper;

class ExprProperties {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<DatumType> INPUT = List.of(DatumType.INT64, DatumType.STRING, DatumType.BOOL, DatumType.FLOAT64);

    @Provide
    Arbitrary<Expr> exprs() {
        return Arbitraries.longs().map(seed -> {
            RandomPlans gen = new RandomPlans(new Random(seed), false);
            DatumType t = INPUT.get(new Random(seed).nextInt(INPUT.size()));
            return gen.expr(INPUT, t, 4);
        });
    }

    @Property(tries = 300)
    void jsonRoundTrip(@ForAll("exprs") Expr e) {
        String text = ExprJson.write(e).toString();
        Expr back = ExprJson.parse(JSON.readTree(text), "");
        assertThat(back).isEqualTo(e);
        assertThat(ExprJson.write(back).toString()).isEqualTo(text);
        assertThat(back.typeOf(INPUT)).isEqualTo(e.typeOf(INPUT));
    }

    @Provide
    Arbitrary<Long> int64s() {
        return Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.longs().between(-100, 100),
                Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 1L, Long.MIN_VALUE + 1, 1L << 32, 3037000499L, 3037000500L));
    }

    @Property(tries = 1000)
    void int64ArithmeticMatchesBigIntegerOrFails(@ForAll("int64s") long a, @ForAll("int64s") long b) {
        BigInteger x = BigInteger.valueOf(a);
        BigInteger y = BigInteger.valueOf(b);
        check(Func.ADD, a, b, x.add(y));
        check(Func.SUB, a, b, x.subtract(y));
        check(Func.MUL, a, b, x.multiply(y));
        check(Func.DIV, a, b, b == 0 ? null : x.divide(y));
        check(Func.MOD, a, b, b == 0 ? null : x.remainder(y));
        check(Func.NEG, a, b, x.negate());
        check(Func.ABS, a, b, x.abs());
    }

    @Provide
    Arbitrary<String> likeTexts() {
        return Arbitraries.strings().withChars('a', 'b', '%', '_', '\\', 'A').ofMaxLength(7);
    }

    /**
     * LIKE and ILIKE against a naive model: the pattern as a regular expression ({@code %} any run,
     * {@code _} any one character, an escaped character itself), for patterns whose escapes all escape
     * something (a trailing escape is an error, tested on its own).
     */
    @Property(tries = 2000)
    void likeMatchesItsRegularExpression(@ForAll("likeTexts") String text, @ForAll("likeTexts") String pattern) {
        StringBuilder regex = new StringBuilder();
        StringBuilder hashed = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\') {
                if (++i == pattern.length()) {
                    return;
                }
                regex.append(java.util.regex.Pattern.quote(String.valueOf(pattern.charAt(i))));
                hashed.append('#').append(pattern.charAt(i));
            } else {
                regex.append(c == '%' ? ".*" : c == '_' ? "." : java.util.regex.Pattern.quote(String.valueOf(c)));
                hashed.append(c);
            }
        }
        boolean expected = java.util.regex.Pattern.compile(regex.toString(), java.util.regex.Pattern.DOTALL).matcher(text).matches();
        boolean expectedInsensitive = java.util.regex.Pattern.compile(regex.toString(), java.util.regex.Pattern.DOTALL
                | java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.UNICODE_CASE).matcher(text).matches();
        Expr s = Expr.lit(text, DatumType.STRING);
        Expr p = Expr.lit(pattern, DatumType.STRING);
        assertThat(Expr.call(Func.LIKE, s, p).eval(new Object[0])).as("'%s' LIKE '%s'", text, pattern).isEqualTo(expected);
        assertThat(Expr.call(Func.ILIKE, s, p).eval(new Object[0])).as("'%s' ILIKE '%s'", text, pattern).isEqualTo(expectedInsensitive);
        // the same pattern written with another escape character means the same
        assertThat(Expr.call(Func.LIKE, s, Expr.lit(hashed.toString(), DatumType.STRING), Expr.lit("#", DatumType.STRING)).eval(new Object[0]))
                .as("'%s' LIKE '%s' ESCAPE '#'", text, hashed).isEqualTo(expected);
    }

    private static void check(Func f, long a, long b, BigInteger expected) {
        Expr e = f == Func.NEG || f == Func.ABS ? Expr.call(f, Expr.col(0)) : Expr.call(f, Expr.col(0), Expr.col(1));
        Object[] row = {a, b};
        if (expected == null || expected.bitLength() >= 64) {
            assertThatThrownBy(() -> e.eval(row)).as("%s(%d, %d)", f, a, b).isInstanceOf(EvalError.class);
        } else {
            assertThat(e.eval(row)).as("%s(%d, %d)", f, a, b).isEqualTo(expected.longValue());
        }
    }
}
