package dev.tandem.expr;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

/**
 * PostgreSQL's {@code to_char} of a bigint, double precision or numeric: a parsed number template read into its
 * description ({@link NumberSpec}, formatting.c's NUMDesc), the number rounded to it and written by {@link NumberWriter}.
 */
final class NumberTemplates {

    private NumberTemplates() {
    }

    /** A number template's description, as PostgreSQL's NUMDesc: digits before and after the point, and its flags. */
    static final class NumberSpec {
        int pre;
        int post;
        boolean decimal;
        boolean zero;
        int zeroStart;
        int zeroEnd;
        boolean fill;
        boolean minus;
        boolean plus;
        boolean lsign;
        boolean lsignPost;
        int preLsign;
        boolean eeee;
    }

    /** Why Tandem refuses a number template, or null when it computes it. */
    static String unsupported(String template) {
        try {
            spec(FormatTemplates.parse(template, false));
            return null;
        } catch (EvalError e) {
            return e.code() == EvalError.Code.NOT_SUPPORTED ? e.getMessage().replaceFirst("^not supported: ", "") : null;
        }
    }

    private static NumberSpec spec(List<FormatTemplates.Node> nodes) {
        NumberSpec num = new NumberSpec();
        for (FormatTemplates.Node node : nodes) {
            if (node.keyword() == null) {
                continue;
            }
            if (num.eeee && !node.keyword().equalsIgnoreCase("EEEE")) {
                throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "\"EEEE\" must be the last pattern used");
            }
            switch (node.keyword().toUpperCase(java.util.Locale.ROOT)) {
                case "9" -> {
                    if (num.decimal) {
                        num.post++;
                    } else {
                        num.pre++;
                    }
                }
                case "0" -> {
                    if (!num.zero && !num.decimal) {
                        num.zero = true;
                        num.zeroStart = num.pre + 1;
                    }
                    if (num.decimal) {
                        num.post++;
                    } else {
                        num.pre++;
                    }
                    num.zeroEnd = num.pre + num.post;
                }
                case "D", "." -> {
                    if (num.decimal) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "multiple decimal points");
                    }
                    num.decimal = true;
                }
                case "FM" -> num.fill = true;
                case "S" -> {
                    if (num.lsign) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"S\" twice");
                    }
                    if (num.plus || num.minus) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together");
                    }
                    if (!num.decimal) {
                        num.lsign = true;
                        num.preLsign = num.pre;
                    } else {
                        num.lsign = true;
                        num.lsignPost = true;
                    }
                }
                case "MI" -> {
                    if (num.lsign) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"S\" and \"MI\" together");
                    }
                    num.minus = true;
                }
                case "PL" -> {
                    if (num.lsign) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"S\" and \"PL\" together");
                    }
                    num.plus = true;
                }
                case "SG" -> {
                    if (num.lsign) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"S\" and \"SG\" together");
                    }
                    num.minus = true;
                    num.plus = true;
                }
                case "EEEE" -> {
                    if (num.eeee) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"EEEE\" twice");
                    }
                    num.eeee = true;
                }
                case "," -> {
                }
                case "G" -> {
                }
                default -> throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: \"" + node.keyword() + "\" in a to_char number template");
            }
        }
        if (num.eeee && (num.fill || num.lsign || num.minus || num.plus || nodes.stream().anyMatch(
                n -> n.keyword() != null && (n.keyword().equals(",") || n.keyword().equalsIgnoreCase("G"))))) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: \"EEEE\" with other patterns than digits and a decimal point in a to_char template");
        }
        return num;
    }

    /** PostgreSQL's {@code to_char} of a bigint, double precision or numeric. */
    static String format(Object value, String template) {
        if (template.isEmpty()) {
            return "";
        }
        List<FormatTemplates.Node> nodes = FormatTemplates.parse(template, false);
        NumberSpec num = spec(nodes);
        String numstr;
        char sign;
        int outPreSpaces = 0;
        if (num.eeee) {
            String sci;
            if (value instanceof Double d && (d.isNaN() || d.isInfinite())) {
                StringBuilder s = new StringBuilder("#".repeat(num.pre + num.post + 6));
                s.setCharAt(0, ' ');
                s.setCharAt(num.pre + 1, '.');
                return s.toString();
            }
            sci = value instanceof Double d ? scientific(new BigDecimal(d), num.post, RoundingMode.HALF_EVEN)
                    : scientific(value instanceof Long l ? BigDecimal.valueOf(l) : (BigDecimal) value, num.post, RoundingMode.HALF_UP);
            return sci.startsWith("-") ? sci : " " + sci;
        }
        String plain;
        boolean negative;
        switch (value) {
            case Long l -> {
                negative = l < 0;
                String digits = l == Long.MIN_VALUE ? "9223372036854775808" : Long.toString(Math.abs(l));
                plain = num.post > 0 ? digits + "." + "0".repeat(num.post) : digits;
            }
            case BigDecimal b -> {
                BigDecimal r = b.setScale(num.post, RoundingMode.HALF_UP);
                negative = r.signum() < 0;
                plain = r.abs().toPlainString();
            }
            case Double d -> {
                if (d.isNaN() || d.isInfinite()) {
                    throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: to_char of a NaN or infinite double precision");
                }
                int post = num.post;
                String whole = new BigDecimal(Math.abs(d)).setScale(0, RoundingMode.HALF_EVEN).toPlainString();
                if (whole.length() >= 15) {
                    post = 0;
                } else if (whole.length() + post > 15) {
                    post = 15 - whole.length();
                }
                // as PostgreSQL, the template's digits after the point shrink to double precision's 15 significant ones
                num.post = post;
                BigDecimal r = new BigDecimal(d).setScale(post, RoundingMode.HALF_EVEN);
                negative = d < 0 || (d == 0 && 1 / d < 0);
                plain = r.abs().toPlainString();
            }
            default -> throw new EvalError(EvalError.Code.DATA_EXCEPTION, "to_char of " + value.getClass().getSimpleName());
        }
        sign = negative ? '-' : '+';
        int point = plain.indexOf('.');
        int preLen = point < 0 ? plain.length() : point;
        numstr = plain;
        if (preLen < num.pre) {
            outPreSpaces = num.pre - preLen;
        } else if (preLen > num.pre) {
            StringBuilder s = new StringBuilder("#".repeat(num.pre + num.post + 1));
            s.setCharAt(num.pre, '.');
            numstr = s.toString();
        }
        return new NumberWriter(nodes, num, numstr, outPreSpaces, sign).write();
    }

    /** {@code x} as PostgreSQL's numeric_out_sci: one digit before the point, {@code scale} after, {@code e+XX}. */
    private static String scientific(BigDecimal x, int scale, RoundingMode rounding) {
        int exponent = x.signum() == 0 ? 0 : x.precision() - x.scale() - 1;
        BigDecimal significand = x.movePointLeft(exponent).setScale(scale, rounding);
        if (rounding == RoundingMode.HALF_EVEN && significand.abs().compareTo(BigDecimal.TEN) >= 0) {
            // C's %e renormalizes a significand rounded up to 10
            exponent++;
            significand = x.movePointLeft(exponent).setScale(scale, rounding);
        }
        String e = Integer.toString(Math.abs(exponent));
        return significand.toPlainString() + "e" + (exponent < 0 ? "-" : "+") + (e.length() < 2 ? "0" + e : e);
    }
}
