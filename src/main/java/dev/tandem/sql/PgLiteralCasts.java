package dev.tandem.sql;

import java.util.List;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Casts of constants rewritten, in place before validation, into the literals PostgreSQL reads them as:
 * timestamps and dates to microseconds, a decimal cast to an integer rounded half away from zero, a numeric
 * keeping its display scale, {@code bytea} and {@code uuid} literals read as PostgreSQL reads them, and
 * {@code -0} as {@code 0} (Calcite would fold each cast otherwise, or refuse it).
 */
final class PgLiteralCasts {

    private PgLiteralCasts() {
    }

    /**
     * Rewrites, in place, the casts of constants under {@code node}: each {@code CAST('...' AS timestamp)} of a
     * quoted literal is replaced by the timestamp literal it spells, parsed as PostgreSQL parses it (to
     * microseconds; Calcite would fold the cast to milliseconds), and so on for the other types above.
     */
    static void rewrite(SqlNode node) {
        switch (node) {
            case org.apache.calcite.sql.SqlNodeList list -> {
                for (int i = 0; i < list.size(); i++) {
                    SqlNode literal = timestampLiteral(list.get(i));
                    if (literal != null) {
                        list.set(i, literal);
                    } else if (list.get(i) != null) {
                        rewrite(list.get(i));
                    }
                }
            }
            case org.apache.calcite.sql.SqlCall call -> {
                List<SqlNode> operands = call.getOperandList();
                for (int i = 0; i < operands.size(); i++) {
                    SqlNode o = operands.get(i);
                    if (o == null) {
                        continue;
                    }
                    SqlNode literal = timestampLiteral(o);
                    if (literal != null) {
                        try {
                            call.setOperand(i, literal);
                            continue;
                        } catch (UnsupportedOperationException e) {
                            // a call whose operands are fixed: the cast stays (and is folded to milliseconds)
                        }
                    }
                    rewrite(o);
                }
            }
            default -> {
            }
        }
    }

    /** The literal that replaces {@code n}, or null: {@code n} stays, its operand rewritten in place where that is the rewrite. */
    private static SqlNode timestampLiteral(SqlNode n) {
        if (n instanceof org.apache.calcite.sql.SqlUnknownLiteral u && SqlTypes.ofName(u.tag) != null
                && SqlTypes.ofName(u.tag) != dev.tandem.row.DatumType.STRING) {
            // DATE '...', TIMESTAMP '...': read as PostgreSQL reads the cast of the quoted literal
            org.apache.calcite.sql.parser.SqlParserPos pos = u.getParserPosition();
            SqlTypeName type = switch (SqlTypes.ofName(u.tag)) {
                case DATE -> SqlTypeName.DATE;
                case TIMESTAMP -> SqlTypeName.TIMESTAMP;
                case TIMESTAMPTZ -> SqlTypes.TIMESTAMPTZ;
                default -> null;
            };
            if (type != null) {
                org.apache.calcite.sql.SqlCall cast = org.apache.calcite.sql.fun.SqlStdOperatorTable.CAST.createCall(pos,
                        org.apache.calcite.sql.SqlLiteral.createCharString(u.getValue(), pos),
                        new org.apache.calcite.sql.SqlDataTypeSpec(new org.apache.calcite.sql.SqlBasicTypeNameSpec(type, pos), pos));
                SqlNode literal = timestampLiteral(cast);
                return literal != null ? literal : cast;
            }
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(0) instanceof org.apache.calcite.sql.SqlCharStringLiteral l
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && (SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.FLOAT64
                        || spec.getTypeName().getSimple().equalsIgnoreCase("double"))
                && negativeZero(l.getValueAs(String.class))) {
            // -0 is 0 to Tandem (a row packs it as 0), but Calcite would fold CAST('-0' AS float8) = 0 to false
            c.setOperand(0, org.apache.calcite.sql.SqlLiteral.createCharString("0", l.getParserPosition()));
            return null;
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.INT64) {
            // a decimal literal cast to an integer: PostgreSQL's numeric rounds half away from zero
            java.math.BigDecimal d = decimal(c.operand(0));
            if (d != null) {
                java.math.BigDecimal rounded = d.setScale(0, java.math.RoundingMode.HALF_UP);
                SqlNode literal = org.apache.calcite.sql.SqlLiteral.createExactNumeric(rounded.abs().toPlainString(), c.getParserPosition());
                if (rounded.signum() < 0) {
                    literal = org.apache.calcite.sql.fun.SqlStdOperatorTable.UNARY_MINUS.createCall(c.getParserPosition(), literal);
                }
                c.setOperand(0, literal);
            }
            return null;
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && spec.getTypeNameSpec() instanceof org.apache.calcite.sql.SqlBasicTypeNameSpec b && b.getTypeName().getSimple().equalsIgnoreCase("char")) {
            // a cast to character(n) (char without a length is character(1)): its operand as text, cut to n characters
            org.apache.calcite.sql.parser.SqlParserPos pos = c.getParserPosition();
            SqlNode operand = timestampLiteral(c.operand(0));
            if (operand == null) {
                operand = c.operand(0);
                rewrite(operand);
            }
            SqlNode text = org.apache.calcite.sql.fun.SqlStdOperatorTable.CAST.createCall(pos, operand,
                    new org.apache.calcite.sql.SqlDataTypeSpec(new org.apache.calcite.sql.SqlBasicTypeNameSpec(SqlTypeName.VARCHAR, pos), pos));
            return PgFunctions.BPCHAR.createCall(pos, text, org.apache.calcite.sql.SqlLiteral.createExactNumeric(String.valueOf(Math.max(b.getPrecision(), 1)), pos));
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.NUMERIC) {
            return numericCast(c, spec);
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && (SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.DATE
                        || SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.TIMESTAMPTZ)) {
            return datetimeCast(c, spec);
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(0) instanceof org.apache.calcite.sql.SqlCharStringLiteral l
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.BYTEA) {
            return SqlTypes.byteaLiteral(l, c.getParserPosition());
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(0) instanceof org.apache.calcite.sql.SqlCharStringLiteral l
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.UUID) {
            // read as PostgreSQL reads it (22P02 when it does not), written in the one form Calcite's reading agrees with
            try {
                c.setOperand(0, org.apache.calcite.sql.SqlLiteral.createCharString(
                        dev.tandem.expr.Uuids.parse(l.getValueAs(String.class)).toString(), l.getParserPosition()));
            } catch (dev.tandem.expr.EvalError e) {
                org.apache.calcite.sql.parser.SqlParserPos pos = c.getParserPosition();
                SqlException x = SqlErrors.evaluation(e);
                throw pos == null || pos.getLineNum() == 0 ? x : x.at(pos.getLineNum(), pos.getColumnNum());
            }
            return null;
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(0) instanceof org.apache.calcite.sql.SqlCharStringLiteral l
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.TIMESTAMP) {
            dev.tandem.row.Timestamp ts = SqlTypes.parseTimestamp(l.getValueAs(String.class).trim());
            java.time.LocalDateTime t = java.time.LocalDateTime.ofInstant(ts.toInstant(), java.time.ZoneOffset.UTC);
            org.apache.calcite.util.TimestampString s = new org.apache.calcite.util.TimestampString(t.getYear(), t.getMonthValue(),
                    t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond()).withNanos(t.getNano());
            return org.apache.calcite.sql.SqlLiteral.createTimestamp(SqlTypeName.TIMESTAMP, s, 6, c.getParserPosition());
        }
        return null;
    }

    /**
     * A cast of a quoted literal to {@code date} or {@code timestamp with time zone} as the literal PostgreSQL reads
     * it as (22007/22008 when it does not read); a cast of anything else to {@code timestamp with time zone} made
     * one to Calcite's instant type, that of such a column (null: the cast stays).
     */
    /** A zone no session's is likely to be: a literal that reads the same in it as in UTC names its own zone. */
    private static final java.time.ZoneId ZONE_PROBE = java.time.ZoneOffset.ofHoursMinutes(5, 17);

    private static SqlNode datetimeCast(org.apache.calcite.sql.SqlCall c, org.apache.calcite.sql.SqlDataTypeSpec spec) {
        boolean date = SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.DATE;
        org.apache.calcite.sql.parser.SqlParserPos pos = c.getParserPosition();
        if (c.operand(0) instanceof org.apache.calcite.sql.SqlCharStringLiteral l) {
            String text = l.getValueAs(String.class);
            try {
                if (date) {
                    return org.apache.calcite.sql.SqlLiteral.createDate(org.apache.calcite.util.DateString.fromDaysSinceEpoch(
                            Math.toIntExact(dev.tandem.expr.Datetimes.parseDate(text).toEpochDay())), pos);
                }
                long micros = dev.tandem.expr.Datetimes.parseTimestampTz(text).micros();
                java.time.LocalDateTime t = java.time.LocalDateTime.ofInstant(new dev.tandem.row.TimestampTz(micros).toInstant(),
                        java.time.ZoneOffset.UTC);
                org.apache.calcite.util.TimestampString s = new org.apache.calcite.util.TimestampString(t.getYear(), t.getMonthValue(),
                        t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond()).withNanos(t.getNano());
                if (dev.tandem.expr.Datetimes.parseTimestampTz(text, ZONE_PROBE).micros() == micros) {
                    return org.apache.calcite.sql.SqlLiteral.createTimestamp(SqlTypes.TIMESTAMPTZ, s, 6, pos);
                }
                // no zone written: the local time, read in the session's zone when the statement runs (the plan is the zone's and every other's)
                return PgFunctions.LOCAL_TIMESTAMPTZ.createCall(pos, org.apache.calcite.sql.SqlLiteral.createTimestamp(SqlTypeName.TIMESTAMP, s, 6, pos));
            } catch (dev.tandem.expr.EvalError e) {
                SqlException x = SqlErrors.evaluation(e);
                throw pos == null || pos.getLineNum() == 0 ? x : x.at(pos.getLineNum(), pos.getColumnNum());
            }
        }
        if (!date) {
            // a date or timestamp constant: its local time, read in the session's zone when the statement runs (Calcite would fold it in UTC)
            SqlNode local = c.operand(0) instanceof org.apache.calcite.sql.SqlLiteral l
                    && (l.getTypeName() == SqlTypeName.TIMESTAMP || l.getTypeName() == SqlTypeName.DATE) ? l : timestampLiteral(c.operand(0));
            if (local instanceof org.apache.calcite.sql.SqlLiteral l && (l.getTypeName() == SqlTypeName.TIMESTAMP || l.getTypeName() == SqlTypeName.DATE)) {
                return PgFunctions.LOCAL_TIMESTAMPTZ.createCall(pos, l);
            }
            c.setOperand(1, new org.apache.calcite.sql.SqlDataTypeSpec(new org.apache.calcite.sql.SqlBasicTypeNameSpec(SqlTypes.TIMESTAMPTZ, 6,
                    pos), pos));
        }
        return null;
    }

    /**
     * A cast of a constant to {@code numeric} as the numeric literal PostgreSQL makes of it ({@code '1.2300'::numeric}
     * keeps its four places; Calcite would fold it to its decimal type's scale), rounded to {@code numeric(p, s)}'s
     * scale when one is declared; null to keep the cast. A cast of anything else to {@code numeric(p, s)} is refused.
     */
    private static SqlNode numericCast(org.apache.calcite.sql.SqlCall c, org.apache.calcite.sql.SqlDataTypeSpec spec) {
        int precision = -1;
        int scale = 0;
        if (spec.getTypeNameSpec() instanceof org.apache.calcite.sql.SqlBasicTypeNameSpec b) {
            precision = b.getPrecision();
            scale = Math.max(b.getScale(), 0);
        }
        SqlNode operand = c.operand(0);
        java.math.BigDecimal v = operand instanceof org.apache.calcite.sql.SqlCharStringLiteral l
                ? SqlTypes.numeric(l.getValueAs(String.class)) : exactDecimal(operand);
        if (v == null) {
            if (precision >= 0) {
                // cast to numeric, then fitted to the precision and scale (Calcite's own DECIMAL(p, s) is not PostgreSQL's)
                org.apache.calcite.sql.parser.SqlParserPos pos = c.getParserPosition();
                c.setOperand(1, new org.apache.calcite.sql.SqlDataTypeSpec(new org.apache.calcite.sql.SqlBasicTypeNameSpec(SqlTypeName.DECIMAL, pos), pos));
                return PgFunctions.NUMERIC_FIT.createCall(pos, c, org.apache.calcite.sql.SqlLiteral.createExactNumeric(String.valueOf(precision), pos),
                        org.apache.calcite.sql.SqlLiteral.createExactNumeric(String.valueOf(scale), pos));
            }
            return null;
        }
        if (precision >= 0) {
            v = SqlTypes.fitNumeric(v, precision, scale);
        }
        SqlNode literal = org.apache.calcite.sql.SqlLiteral.createExactNumeric(v.abs().toPlainString(), c.getParserPosition());
        if (v.signum() < 0) {
            literal = org.apache.calcite.sql.fun.SqlStdOperatorTable.UNARY_MINUS.createCall(c.getParserPosition(), literal);
        }
        if (v.scale() > 0) {
            return literal;
        }
        // an integer literal is an integer to Calcite: the cast (to plain numeric) keeps it a numeric
        c.setOperand(0, literal);
        c.setOperand(1, new org.apache.calcite.sql.SqlDataTypeSpec(new org.apache.calcite.sql.SqlBasicTypeNameSpec(SqlTypeName.DECIMAL,
                c.getParserPosition()), c.getParserPosition()));
        return null;
    }

    /** The value of a numeric literal as PostgreSQL's numeric reads it, or its negation, else null. */
    private static java.math.BigDecimal exactDecimal(SqlNode n) {
        if (n instanceof org.apache.calcite.sql.SqlNumericLiteral l) {
            // PostgreSQL reads 1.5e-3 as the numeric 0.0015
            java.math.BigDecimal d = l.getValueAs(java.math.BigDecimal.class);
            return d.scale() < 0 ? d.setScale(0) : d;
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.MINUS_PREFIX) {
            java.math.BigDecimal d = exactDecimal(c.operand(0));
            return d == null ? null : d.negate();
        }
        return null;
    }

    private static boolean negativeZero(String text) {
        try {
            double d = Double.parseDouble(text.trim());
            return d == 0.0 && Double.doubleToRawLongBits(d) != 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The value of a numeric literal (a numeric in PostgreSQL, with an exponent too) or its negation, else null. */
    private static java.math.BigDecimal decimal(SqlNode n) {
        if (n instanceof org.apache.calcite.sql.SqlNumericLiteral l) {
            return l.getValueAs(java.math.BigDecimal.class);
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.MINUS_PREFIX) {
            java.math.BigDecimal d = decimal(c.operand(0));
            return d == null ? null : d.negate();
        }
        return null;
    }
}
