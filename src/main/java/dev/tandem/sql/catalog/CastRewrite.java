package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.TokenScan.closing;
import static dev.tandem.sql.catalog.TokenScan.nameEnd;
import static dev.tandem.sql.catalog.TokenScan.operandStart;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.catalog.CatalogToken.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Rewrites PostgreSQL's casts in a client's tokens: {@code x::type} → {@code CAST(x AS type)}, or the
 * function that reads a name as an OID ({@code 't'::regclass}) or writes an OID or vector as text.
 */
final class CastRewrite {

    /** The words that continue a type's name ({@code double precision}, {@code timestamp with time zone}). */
    private static final Set<String> TYPE_NAME_WORDS = Set.of("precision", "varying", "with", "without", "time", "zone");
    /** The element types of the arrays a cast may name, the array's elements kept as they are. */
    private static final Set<String> ARRAY_ELEMENT_TYPES = Set.of("int2", "int4", "int8", "oid", "smallint", "integer", "bigint", "text",
            "name", "varchar");
    private static final Set<String> INT2VECTOR_COLUMNS = Set.of("indkey", "indoption", "indclass", "indcollation", "stxkeys", "proargtypes");

    private CastRewrite() {
    }

    static void casts(List<CatalogToken> toks) {
        for (int i = 0; i < toks.size(); i++) {
            if (!(toks.get(i).kind() == Kind.OP && toks.get(i).text().equals("::"))) {
                continue;
            }
            int start = operandStart(toks, i);
            int typeEnd = nameEnd(toks, i + 1);
            StringBuilder typeName = new StringBuilder();
            for (int k = i + 1; k < typeEnd; k++) {
                typeName.append(toks.get(k).name());
            }
            String type = typeName.toString().replaceFirst("^pg_catalog\\.", "");
            while (typeEnd < toks.size() && toks.get(typeEnd).kind() == Kind.WORD && TYPE_NAME_WORDS.contains(toks.get(typeEnd).lower())) {
                type = type + " " + toks.get(typeEnd).lower();
                typeEnd++;
            }
            if (typeEnd < toks.size() && toks.get(typeEnd).is("(")) {
                typeEnd = closing(toks, typeEnd) + 1;
            }
            boolean array = false;
            if (typeEnd + 1 < toks.size() && toks.get(typeEnd).is("[") && toks.get(typeEnd + 1).is("]")) {
                array = true;
                typeEnd += 2;
            }
            List<CatalogToken> operand = new ArrayList<>(toks.subList(start, i));
            List<CatalogToken> replacement = cast(operand, type, array);
            toks.subList(start, typeEnd).clear();
            toks.addAll(start, replacement);
            i = start;
        }
    }

    /** {@code operand} cast to {@code type} (to an array of it when {@code array}), as tokens Calcite reads. */
    private static List<CatalogToken> cast(List<CatalogToken> operand, String type, boolean array) {
        boolean literal = operand.size() == 1 && operand.getFirst().kind() == Kind.STRING;
        if (array) {
            if (ARRAY_ELEMENT_TYPES.contains(type)) {
                return operand;
            }
            throw SqlException.notSupported("a cast to " + type + "[] in a catalog query");
        }
        String sqlType = switch (type) {
            case "int2", "smallint" -> "SMALLINT";
            case "int4", "integer", "int" -> "INTEGER";
            case "int8", "bigint", "oid", "xid", "regproc", "regprocedure", "regoper", "regtype", "regclass", "regnamespace", "regrole" -> "BIGINT";
            case "text", "name", "varchar", "character varying", "bpchar", "char", "information_schema.sql_identifier",
                    "information_schema.character_data", "information_schema.yes_or_no" -> "VARCHAR";
            case "bool", "boolean" -> "BOOLEAN";
            case "float4", "real" -> "REAL";
            case "float8", "double precision" -> "DOUBLE";
            case "numeric", "information_schema.cardinal_number" -> "BIGINT";
            default -> throw SqlException.notSupported("a cast to " + type + " in a catalog query");
        };
        String fn = null;
        if (type.startsWith("reg")) {
            fn = switch (type) {
                case "regclass" -> literal ? "tandem_regclass_in" : "tandem_regclass_out";
                case "regtype" -> literal ? "tandem_regtype_in" : "tandem_regtype_out";
                case "regnamespace" -> literal ? "tandem_regnamespace_in" : "tandem_regnamespace_out";
                case "regproc", "regprocedure" -> literal ? null : "tandem_regproc_out";
                case "regrole" -> literal ? "tandem_regrole_in" : "pg_get_userbyid";
                default -> throw SqlException.notSupported("a cast to " + type + " in a catalog query");
            };
            if (type.startsWith("regproc") && literal) {
                // a function named by its text: Tandem's pg_proc names its few functions without a schema
                return List.of(new CatalogToken(Kind.STRING, CatalogLexer.quote(operand.getFirst().unquoted().replaceFirst("^pg_catalog\\.", ""))));
            }
        } else if (sqlType.equals("VARCHAR") && operand.size() >= 1 && operand.getLast().kind() == Kind.WORD
                && INT2VECTOR_COLUMNS.contains(operand.getLast().lower())) {
            fn = "tandem_int2vector_out";
        } else if (sqlType.equals("VARCHAR")) {
            fn = "tandem_text";
        }
        if (fn != null) {
            return CatalogToken.call(fn, operand);
        }
        List<CatalogToken> inner = new ArrayList<>(operand);
        inner.add(new CatalogToken(Kind.WORD, "AS"));
        inner.add(new CatalogToken(Kind.WORD, sqlType));
        return CatalogToken.call("CAST", inner);
    }
}
