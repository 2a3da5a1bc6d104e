package dev.tandem.expr;

import dev.tandem.row.DatumType;
import java.util.ArrayList;
import java.util.List;

/**
 * An expression bound to a session's time zone: each call whose result depends on the zone — a cast between
 * {@code timestamptz} and text, {@code timestamp}, {@code date} or {@code time}, {@code extract}, {@code date_trunc} and
 * {@code to_char} of a {@code timestamptz}, {@code timestamptz ± interval} — given the zone as its last argument
 * (see {@link Func}), so that it computes in that zone wherever it is evaluated; {@code array_to_string} of a
 * {@code timestamptz[]} joins its elements cast to text in the zone.
 */
public final class ZoneBinding {

    private ZoneBinding() {
    }

    /**
     * {@code e} (over columns of types {@code input}) with its zone-dependent calls computing in the zone {@code key}
     * ({@link TimeZones.Zone#key}); {@code e} itself when it has none, or when they are bound already.
     */
    public static Expr bind(Expr e, List<DatumType> input, String key) {
        if (!(e instanceof Expr.Call c)) {
            return e;
        }
        List<Expr> args = new ArrayList<>(c.args().size());
        boolean changed = false;
        for (Expr a : c.args()) {
            Expr b = bind(a, input, key);
            changed |= b != a;
            args.add(b);
        }
        Expr.Call call = changed ? new Expr.Call(c.func(), args, c.type()) : c;
        Expr zone = Expr.lit(key, DatumType.STRING);
        int n = args.size();
        switch (c.func()) {
            case CAST -> {
                if (n == 1 && dependent(ExprTyper.typeOf(args.get(0), input, ""), c.type())) {
                    return new Expr.Call(Func.CAST, List.of(args.get(0), zone), c.type());
                }
            }
            case EXTRACT, DATE_TRUNC -> {
                if (n == 2 && ExprTyper.typeOf(args.get(1), input, "") == DatumType.TIMESTAMPTZ) {
                    return Expr.call(c.func(), args.get(0), args.get(1), zone);
                }
            }
            case TO_CHAR -> {
                DatumType x = ExprTyper.typeOf(args.get(0), input, "");
                if (n == 2 && (x == DatumType.TIMESTAMPTZ || x == DatumType.DATE)) {
                    return Expr.call(Func.TO_CHAR, args.get(0), args.get(1), zone);
                }
            }
            case ADD, SUB -> {
                if (n == 2) {
                    DatumType a = ExprTyper.typeOf(args.get(0), input, "");
                    DatumType b = ExprTyper.typeOf(args.get(1), input, "");
                    if (a == DatumType.TIMESTAMPTZ && b == DatumType.INTERVAL) {
                        return Expr.call(Func.TZ_PLUS, args.get(0), c.func() == Func.SUB ? Expr.call(Func.NEG, args.get(1)) : args.get(1), zone);
                    }
                    if (c.func() == Func.ADD && a == DatumType.INTERVAL && b == DatumType.TIMESTAMPTZ) {
                        return Expr.call(Func.TZ_PLUS, args.get(1), args.get(0), zone);
                    }
                }
            }
            case ARRAY_TO_STRING -> {
                // each element written as its text is: a timestamptz in the zone
                if (ExprTyper.typeOf(args.get(0), input, "") == DatumType.arrayOf(DatumType.TIMESTAMPTZ)) {
                    List<Expr> texts = new ArrayList<>(args);
                    texts.set(0, new Expr.Call(Func.CAST, List.of(args.get(0), zone), DatumType.arrayOf(DatumType.STRING)));
                    return new Expr.Call(Func.ARRAY_TO_STRING, texts, c.type());
                }
            }
            default -> {
            }
        }
        return call;
    }

    /** Whether a cast from {@code from} to {@code to} converts between instants and local times (or their text). */
    private static boolean dependent(DatumType from, DatumType to) {
        if (from.isArray() || to.isArray()) {
            DatumType f = from.isArray() ? from.element() : from;
            DatumType t = to.isArray() ? to.element() : to;
            return (f == DatumType.TIMESTAMPTZ || t == DatumType.TIMESTAMPTZ) && f != t;
        }
        return from == DatumType.TIMESTAMPTZ && (to == DatumType.STRING || to == DatumType.TIMESTAMP || to == DatumType.DATE || to == DatumType.TIME)
                || to == DatumType.TIMESTAMPTZ && (from == DatumType.STRING || from == DatumType.TIMESTAMP || from == DatumType.DATE);
    }
}
