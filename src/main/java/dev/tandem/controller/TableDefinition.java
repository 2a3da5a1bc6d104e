package dev.tandem.controller;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A new table's definition, checked before anything is stored: its columns, its column defaults (fitted
 * to their declared types), its declared types, its {@code CHECK} constraints (conditions over the row)
 * and its unique keys (named as PostgreSQL names them, the primary key first, whose columns become NOT NULL).
 *
 * @param schema the table's schema (a primary key's columns not nullable)
 * @param keys the keys, the primary key first
 * @param primary the primary key, or null
 * @param defaults the column defaults by column name, fitted to the declared types
 */
record TableDefinition(Schema schema, List<CatalogEntry.Key> keys, CatalogEntry.Key primary, Map<String, Object> defaults) {

    /**
     * Checks a table's definition; {@code names} checks each name it defines (the table's, its columns',
     * its primary key's), throwing when one is not valid or taken. Refusals are {@link ControllerException}s.
     */
    static TableDefinition of(String name, List<Column> columns, List<CatalogEntry.Key> requested, Map<String, Object> givenDefaults,
            Map<String, DeclaredType> declared, List<CatalogEntry.Check> checks, Consumer<String> names) {
        Map<String, Object> defaults = new java.util.HashMap<>(givenDefaults);
        names.accept(name);
        if (columns == null || columns.isEmpty()) {
            throw ControllerException.invalid("a table needs at least one column");
        }
        Schema schema;
        try {
            schema = new Schema(columns);
        } catch (IllegalArgumentException e) {
            throw ControllerException.invalid(e.getMessage());
        }
        for (Column c : columns) {
            names.accept(c.name());
        }
        for (Map.Entry<String, Object> d : defaults.entrySet()) {
            int c = schema.indexOf(d.getKey());
            if (c < 0) {
                throw ControllerException.invalid("a default for column '" + d.getKey() + "', which the table does not have");
            }
            DatumType type = schema.column(c).type();
            if (d.getValue() == CatalogEntry.WriteTimeDefault.NOW
                    && type != DatumType.TIMESTAMPTZ && type != DatumType.TIMESTAMP && type != DatumType.DATE) {
                throw ControllerException.invalid("the statement's time as the default of column '" + d.getKey() + "' of type " + type.jsonName());
            }
            if (d.getValue() == CatalogEntry.WriteTimeDefault.SEQUENCE && type != DatumType.INT64) {
                throw ControllerException.invalid("a sequence as the default of column '" + d.getKey() + "' of type " + type.jsonName());
            }
        }
        for (Map.Entry<String, DeclaredType> d : declared.entrySet()) {
            int c = schema.indexOf(d.getKey());
            if (c < 0 || schema.column(c).type() != d.getValue().datumType()) {
                throw ControllerException.invalid("a declared type " + d.getValue().sqlName() + " for column '" + d.getKey()
                        + "', which the table does not have with type " + d.getValue().datumType().jsonName());
            }
            Object value = defaults.get(d.getKey());
            if (value != null && !(value instanceof CatalogEntry.WriteTimeDefault)) {
                try {
                    defaults.put(d.getKey(), d.getValue().fit(value));
                } catch (dev.tandem.expr.EvalError e) {
                    throw ControllerException.evaluation(e.code(), e.getMessage());
                }
            }
        }
        if (checks.size() > 64) {
            throw ControllerException.invalid("a table has at most 64 check constraints, not " + checks.size());
        }
        java.util.Set<String> checkNames = new java.util.HashSet<>();
        for (CatalogEntry.Check c : checks) {
            if (c.name() == null || !checkNames.add(c.name())) {
                throw ControllerException.invalid("check constraint \"" + c.name() + "\" for relation \"" + name + "\" already exists");
            }
            try {
                List<DatumType> out = WrittenRows.checkMfp(c, schema.arity()).bind(schema.types()).outputTypes();
                if (out.get(out.size() - 1) != DatumType.BOOL) {
                    throw ControllerException.invalid("the check constraint '" + c.name() + "' is not a condition (of type " + out.get(out.size() - 1) + ")");
                }
            } catch (dev.tandem.expr.ExprException e) {
                throw ControllerException.invalid("the check constraint '" + c.name() + "': " + e.getMessage());
            }
        }
        List<CatalogEntry.Key> keys = tableKeys(name, schema, requested);
        CatalogEntry.Key primary = keys.isEmpty() || !keys.get(0).primary() ? null : keys.get(0);
        if (primary != null) {
            List<Column> cols = new ArrayList<>(columns);
            for (String k : primary.columns()) {
                Column c = schema.column(schema.indexOf(k));
                cols.set(schema.indexOf(k), new Column(c.name(), c.type(), false));
            }
            schema = new Schema(cols);
            names.accept(primary.name());
        }
        return new TableDefinition(schema, keys, primary, defaults);
    }

    /**
     * The keys of table {@code table} as requested, checked against its schema and named (the primary
     * key first, which the storage arranges the table by); a unique key on the columns of an earlier
     * key (or of the primary key) is redundant and dropped, as PostgreSQL drops it.
     */
    static List<CatalogEntry.Key> tableKeys(String table, Schema schema, List<CatalogEntry.Key> requested) {
        List<CatalogEntry.Key> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        List<CatalogEntry.Key> primaryFirst = new ArrayList<>(requested.stream().filter(CatalogEntry.Key::primary).toList());
        primaryFirst.addAll(requested.stream().filter(k -> !k.primary()).toList());
        for (CatalogEntry.Key k : primaryFirst) {
            String what = k.primary() ? "primary key" : "unique key";
            if (k.columns().isEmpty()) {
                throw ControllerException.invalid("a " + what + " needs at least one column");
            }
            for (int i = 0; i < k.columns().size(); i++) {
                String c = k.columns().get(i);
                if (schema.indexOf(c) < 0) {
                    throw ControllerException.invalid(what + ": the table has no column '" + c + "'");
                }
                if (k.columns().subList(0, i).contains(c)) {
                    throw ControllerException.invalid(what + ": column '" + c + "' appears twice");
                }
            }
            if (k.primary() && out.stream().anyMatch(CatalogEntry.Key::primary)) {
                throw ControllerException.invalid("multiple primary keys for table '" + table + "' are not allowed");
            }
            if (!k.primary() && out.stream().anyMatch(o -> o.columns().equals(k.columns()))) {
                continue;
            }
            String name = k.name() != null ? k.name() : keyName(table, k);
            if (!names.add(name)) {
                throw new ControllerException(ControllerException.Reason.DUPLICATE, "constraint '" + name + "' for table '" + table + "' already exists");
            }
            out.add(new CatalogEntry.Key(name, k.columns(), k.primary()));
        }
        return out;
    }

    /** PostgreSQL's name for a key: {@code <table>_pkey}, {@code <table>_<columns>_key}, at most 63 characters. */
    private static String keyName(String table, CatalogEntry.Key k) {
        String suffix = k.primary() ? "_pkey" : "_" + String.join("_", k.columns()) + "_key";
        String name = table + suffix;
        if (name.length() <= 63) {
            return name;
        }
        return suffix.length() < 63 ? table.substring(0, 63 - suffix.length()) + suffix : name.substring(0, 63);
    }

}
