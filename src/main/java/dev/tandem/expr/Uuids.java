package dev.tandem.expr;

import java.util.UUID;

/** PostgreSQL's {@code uuid} input: 32 hex digits, of either case, optionally in braces, with a hyphen after any group of four. */
public final class Uuids {

    private Uuids() {
    }

    /** The uuid {@code s} spells, as PostgreSQL's {@code uuid_in} reads it; an {@link EvalError} (22P02) when it does not. */
    public static UUID parse(String s) {
        String t = s.trim();
        if (t.startsWith("{") && t.endsWith("}") && t.length() > 1) {
            t = t.substring(1, t.length() - 1);
        }
        long hi = 0;
        long lo = 0;
        int digits = 0;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            int v = Character.digit(c, 16);
            if (c == '-' && digits > 0 && digits % 4 == 0 && digits < 32 && i + 1 < t.length() && t.charAt(i + 1) != '-') {
                continue;
            }
            if (v < 0 || digits == 32 || c > 'f' && c != '-') {
                throw invalid(s);
            }
            if (digits < 16) {
                hi = hi << 4 | v;
            } else {
                lo = lo << 4 | v;
            }
            digits++;
        }
        if (digits != 32) {
            throw invalid(s);
        }
        return new UUID(hi, lo);
    }

    private static EvalError invalid(String s) {
        return new EvalError(EvalError.Code.INVALID_TEXT_REPRESENTATION, "invalid input syntax for type uuid: \"" + s + "\"");
    }
}
