package dev.tandem.sql.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A token of a client's PostgreSQL text: its kind and its text as written (a literal with its quotes, a parameter's number). */
record CatalogToken(Kind kind, String text) {

    enum Kind { WORD, QUOTED, STRING, NUMBER, PARAM, OP, PUNCT }

    /** Whether this is the word, operator or punctuation {@code word}, in any case. */
    boolean is(String word) {
        return (kind == Kind.WORD || kind == Kind.OP || kind == Kind.PUNCT) && text.equalsIgnoreCase(word);
    }

    /** Whether this is a name: a word or a double-quoted identifier. */
    boolean isName() {
        return kind == Kind.WORD || kind == Kind.QUOTED;
    }

    String lower() {
        return text.toLowerCase(Locale.ROOT);
    }

    /** A string literal's or quoted identifier's text without its quotes, a doubled quote as one. */
    String unquoted() {
        return text.substring(1, text.length() - 1).replace(kind == Kind.STRING ? "''" : "\"\"", kind == Kind.STRING ? "'" : "\"");
    }

    /** A name as PostgreSQL reads it: a quoted identifier as written between its quotes, a word in lower case. */
    String name() {
        return kind == Kind.QUOTED ? unquoted() : lower();
    }

    /** {@code name(args)} as tokens. */
    static List<CatalogToken> call(String name, List<CatalogToken> args) {
        List<CatalogToken> out = new ArrayList<>();
        out.add(new CatalogToken(Kind.WORD, name));
        out.add(new CatalogToken(Kind.PUNCT, "("));
        out.addAll(args);
        out.add(new CatalogToken(Kind.PUNCT, ")"));
        return out;
    }
}
