package dev.tandem.controller;

import dev.tandem.plan.Plan;
import dev.tandem.row.Column;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A named object of the catalog: a table, a view (a named plan) or an index. */
public sealed interface CatalogEntry {

    String id();

    String name();

    /** The columns of the object's rows (for an index: those of the collection it indexes). */
    Schema schema();

    /**
     * An input table, with its unique keys (its primary key first, if it has one), its columns'
     * defaults by column name — constants, or a {@link WriteTimeDefault} (a column without one defaults to
     * NULL; no NULL values here) — and
     * the declared types of the columns whose SQL type says more than their datum type (by column name).
     */
    /** A column default computed as a row is written rather than kept as a constant. */
    enum WriteTimeDefault {
        /** The writing statement's time ({@code DEFAULT now()}), as the column's type (timestamptz, timestamp, date) holds it. */
        NOW
    }

    record Table(String id, String name, Schema schema, List<Key> keys, Map<String, Object> defaults, Map<String, DeclaredType> declared)
            implements CatalogEntry {
        public Table {
            keys = List.copyOf(keys);
            defaults = Map.copyOf(defaults);
            declared = Map.copyOf(declared);
        }

        public Table(String id, String name, Schema schema, List<Key> keys, Map<String, Object> defaults) {
            this(id, name, schema, keys, defaults, Map.of());
        }

        /** The declared type of column {@code c}, or null when it is its datum type's. */
        public DeclaredType declaredType(int c) {
            return declared.isEmpty() ? null : declared.get(schema.column(c).name());
        }

        public Table(String id, String name, Schema schema, List<Key> keys) {
            this(id, name, schema, keys, Map.of());
        }

        public Table(String id, String name, Schema schema) {
            this(id, name, schema, List.of());
        }

        /** The primary key, if the table has one. */
        public Optional<Key> primaryKey() {
            return keys.stream().filter(Key::primary).findFirst();
        }
    }

    /**
     * A constraint of a table that no two rows share the values of {@code columns} (by name, in key
     * order): its primary key (NOT NULL columns; an index of the same name serves lookups by it) or a
     * unique key (rows with a NULL in a key column never conflict).
     */
    record Key(String name, List<String> columns, boolean primary) {
        public Key {
            columns = List.copyOf(columns);
        }
    }

    /** A named plan over tables and views, by name. */
    record View(String id, String name, Plan plan, Schema schema) implements CatalogEntry {
    }

    /**
     * An index on table or view {@code on}, arranged by the {@code key} columns, whose compaction
     * window is {@code windowMillis} behind its write frontier, or follows the live default
     * ({@code tandem.compaction.window}) when it is {@link #DEFAULT_WINDOW}.
     */
    record Index(String id, String name, String on, List<String> key, Schema schema, long windowMillis) implements CatalogEntry {
        /** The window of an index created without one: the live default at each compaction. */
        public static final long DEFAULT_WINDOW = -1;

        public Index {
            key = List.copyOf(key);
        }

        /** The key columns, in key order, each nullable (a lookup may ask for a NULL key). */
        public Schema keySchema() {
            List<Column> cols = new ArrayList<>();
            for (String k : key) {
                Column c = schema.column(schema.indexOf(k));
                cols.add(new Column(c.name(), c.type(), true));
            }
            return new Schema(cols);
        }
    }
}
