package dev.tandem.source.postgres;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads and checks, at {@code CREATE SOURCE}, what a PostgreSQL source needs upstream: logical
 * decoding on ({@code wal_level = logical}), the publication, the requested tables in it, a way to
 * identify each table's rows (a primary key, a replica identity index, or {@code REPLICA IDENTITY
 * FULL}), and columns whose types Tandem holds exactly (or named in {@code TEXT COLUMNS}). Each
 * refusal is an {@link IllegalArgumentException} with a message naming what is wrong.
 */
final class PgSchemaReader {

    /** A requested table: {@code upstream} as written ({@code name} or {@code schema.name}) and its Tandem name. */
    record Wanted(String upstream, String local) {
    }

    private PgSchemaReader() {
    }

    /**
     * The tables to replicate: the {@code wanted} ones (all of the publication's when null), their
     * columns mapped; {@code textColumns} are {@code table.column} names taken as text whatever their type.
     */
    static List<PgSourceDefinition.Table> read(Connection c, String publication, List<Wanted> wanted, Set<String> textColumns) throws SQLException {
        String walLevel = single(c, "SHOW wal_level");
        if (!"logical".equals(walLevel)) {
            throw new IllegalArgumentException("the upstream's wal_level is '" + walLevel + "'; a PostgreSQL source needs wal_level = logical"
                    + " (set it in postgresql.conf and restart PostgreSQL)");
        }
        Map<String, String[]> published = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM pg_publication WHERE pubname = ?")) {
            s.setString(1, publication);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    throw new IllegalArgumentException("publication '" + publication + "' does not exist upstream (CREATE PUBLICATION " + publication
                            + " FOR TABLE ... in the upstream database)");
                }
            }
        }
        try (PreparedStatement s = c.prepareStatement("SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = ? ORDER BY 1, 2")) {
            s.setString(1, publication);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    published.put(r.getString(1) + "." + r.getString(2), new String[] {r.getString(1), r.getString(2)});
                }
            }
        }
        List<Wanted> tables = new ArrayList<>();
        if (wanted == null) {
            if (published.isEmpty()) {
                throw new IllegalArgumentException("publication '" + publication + "' has no tables");
            }
            published.values().forEach(p -> tables.add(new Wanted(p[0] + "." + p[1], p[0].equals("public") ? p[1] : p[0] + "_" + p[1])));
        } else {
            tables.addAll(wanted);
        }
        List<PgSourceDefinition.Table> out = new ArrayList<>();
        Set<String> usedText = new java.util.HashSet<>();
        for (Wanted w : tables) {
            String qualified = w.upstream().contains(".") ? w.upstream() : "public." + w.upstream();
            String[] p = published.get(qualified);
            if (p == null) {
                throw new IllegalArgumentException("table " + w.upstream() + " is not in publication '" + publication + "' (its tables are "
                        + published.keySet() + ")");
            }
            out.add(table(c, p[0], p[1], w, textColumns, usedText));
        }
        for (String t : textColumns) {
            if (!usedText.contains(t)) {
                throw new IllegalArgumentException("TEXT COLUMNS names " + t + ", which is no column of the replicated tables");
            }
        }
        return out;
    }

    private static PgSourceDefinition.Table table(Connection c, String schema, String name, Wanted w, Set<String> textColumns, Set<String> usedText)
            throws SQLException {
        String rel = quote(schema) + "." + quote(name);
        List<Column> cols = new ArrayList<>();
        List<String> pgTypes = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT a.attname, t.typname, a.atttypid, a.attnotnull FROM pg_attribute a"
                + " JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
            s.setString(1, rel);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    String col = r.getString(1);
                    String typname = r.getString(2);
                    DatumType type = PgValues.typeOf(typname);
                    boolean text = textColumns.contains(w.upstream() + "." + col) || textColumns.contains(name + "." + col);
                    if (text) {
                        usedText.add(textColumns.contains(w.upstream() + "." + col) ? w.upstream() + "." + col : name + "." + col);
                        type = DatumType.STRING;
                    }
                    if (type == null) {
                        throw new IllegalArgumentException("table " + schema + "." + name + ", column " + col + ": type " + typname
                                + " cannot be held exactly (Tandem holds " + PgValues.SUPPORTED + "); name it in TEXT COLUMNS ("
                                + name + "." + col + ") to take it as text");
                    }
                    cols.add(new Column(col, type, !r.getBoolean(4)));
                    pgTypes.add(r.getLong(3) + " " + typname);
                }
            }
        }
        String identity = single(c, "SELECT relreplident::text FROM pg_class WHERE oid = '" + rel.replace("'", "''") + "'::regclass");
        List<String> pk = indexColumns(c, rel, "indisprimary");
        List<String> key = switch (identity) {
            case "d" -> {
                if (pk.isEmpty()) {
                    throw new IllegalArgumentException("table " + schema + "." + name + " has no primary key and REPLICA IDENTITY DEFAULT, so its"
                            + " updates and deletes cannot be identified; add a primary key or ALTER TABLE " + rel + " REPLICA IDENTITY FULL");
                }
                yield pk;
            }
            case "i" -> indexColumns(c, rel, "indisreplident");
            case "f" -> pk;
            default -> throw new IllegalArgumentException("table " + schema + "." + name + " has REPLICA IDENTITY NOTHING, so its updates and"
                    + " deletes cannot be replicated; give it a primary key or REPLICA IDENTITY FULL");
        };
        return new PgSourceDefinition.Table(schema, name, w.local(), cols, pgTypes, key);
    }

    private static List<String> indexColumns(Connection c, String rel, String flag) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
                + " AND a.attnum = ANY(i.indkey) WHERE i.indrelid = ?::regclass AND i." + flag + " ORDER BY array_position(i.indkey::int2[], a.attnum)")) {
            s.setString(1, rel);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(r.getString(1));
                }
            }
        }
        return out;
    }

    static String single(Connection c, String sql) throws SQLException {
        try (var s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            return r.next() ? r.getString(1) : null;
        }
    }

    static String quote(String ident) {
        return "\"" + ident.replace("\"", "\"\"") + "\"";
    }
}
