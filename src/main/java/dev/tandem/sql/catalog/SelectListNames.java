package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.TokenScan.depthStep;

import dev.tandem.sql.catalog.CatalogToken.Kind;
import java.util.ArrayList;
import java.util.List;

/** The column names PostgreSQL gives a SELECT's select list: an item's alias, a column's or function's name, else {@code ?column?}. */
final class SelectListNames {

    private SelectListNames() {
    }

    /** The names of the select list of the SELECT at {@code select} in {@code toks}. */
    static List<String> of(List<CatalogToken> toks, int select) {
        List<String> names = new ArrayList<>();
        int depth = 0;
        int itemStart = select + 1;
        for (int i = select + 1; i <= toks.size(); i++) {
            CatalogToken t = i < toks.size() ? toks.get(i) : null;
            int step = t == null ? 0 : depthStep(t);
            if (step != 0) {
                depth += step;
            } else if (t == null || depth == 0 && (t.is(",") || t.is("from"))) {
                names.add(itemName(toks, itemStart, i));
                itemStart = i + 1;
                if (t == null || t.is("from")) {
                    break;
                }
            }
        }
        return names;
    }

    private static String itemName(List<CatalogToken> toks, int from, int to) {
        if (to - from >= 2 && toks.get(to - 2).is("as") || to - from >= 2 && toks.get(to - 1).isName()
                && (toks.get(to - 2).isName() || toks.get(to - 2).is(")")) && !toks.get(to - 2).is(".")) {
            CatalogToken a = toks.get(to - 1);
            if (!a.is("end")) {
                return a.name();
            }
        }
        CatalogToken last = toks.get(to - 1);
        if (to - from >= 1 && last.isName() && (to - from == 1 || toks.get(to - 2).is("."))) {
            return last.name();
        }
        if (to - from >= 3 && toks.get(from).kind() == Kind.WORD && last.is(")")) {
            int fn = from;
            while (fn + 2 < to && toks.get(fn + 1).is(".")) {
                fn += 2;
            }
            if (toks.get(fn + 1).is("(")) {
                return toks.get(fn).lower();
            }
        }
        return "?column?";
    }
}
