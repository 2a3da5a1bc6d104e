package dev.tandem.sql.catalog;

import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlState;
import java.util.List;
import java.util.Locale;

/**
 * The configuration parameters Tandem reports as PostgreSQL does: their values are fixed (Tandem
 * speaks UTF8, keeps timestamps in UTC, has one schema), and one list answers {@code SHOW},
 * {@code current_setting()} and {@code pg_settings}. {@code transaction_isolation} is the session's and
 * is answered by {@code SHOW} alone.
 */
public final class PgSettings {

    /** A parameter: its canonical name (as {@code SHOW} names its column), value, unit, category, description, context and type. */
    public record Setting(String name, String value, String unit, String category, String description, String context, String type) {

        /** Whether a client may {@code SET} it (to its one value, Tandem having no other). */
        public boolean settable() {
            return context.equals("user");
        }
    }

    private static final String LOCALE = "Client Connection Defaults / Locale and Formatting";
    private static final String PRESET = "Preset Options";
    private static final String STATEMENT = "Client Connection Defaults / Statement Behavior";

    /** Every parameter Tandem knows, in {@code pg_settings}' order (by name, case-insensitively). */
    public static final List<Setting> ALL = List.of(
            new Setting("block_size", "8192", null, PRESET, "Shows the size of a disk block.", "internal", "integer"),
            new Setting("bytea_output", "hex", null, STATEMENT, "Sets the output format for bytea.", "user", "enum"),
            new Setting("client_encoding", "UTF8", null, LOCALE, "Sets the client's character set encoding.", "user", "string"),
            new Setting("DateStyle", "ISO, MDY", null, LOCALE, "Sets the display format for date and time values.", "user", "string"),
            new Setting("default_transaction_read_only", "off", null, STATEMENT,
                    "Sets the default read-only status of new transactions.", "user", "bool"),
            new Setting("integer_datetimes", "on", null, PRESET, "Shows whether datetimes are integer based.", "internal", "bool"),
            new Setting("IntervalStyle", "postgres", null, LOCALE, "Sets the display format for interval values.", "user", "enum"),
            new Setting("is_superuser", "off", null, PRESET, "Shows whether the current user is a superuser.", "internal", "bool"),
            new Setting("lc_collate", "C", null, PRESET, "Shows the collation order locale.", "internal", "string"),
            new Setting("lc_ctype", "C", null, PRESET, "Shows the character classification and case conversion locale.", "internal", "string"),
            new Setting("max_identifier_length", "63", null, PRESET, "Shows the maximum identifier length.", "internal", "integer"),
            new Setting("max_index_keys", "32", null, PRESET, "Shows the maximum number of index keys.", "internal", "integer"),
            new Setting("search_path", "\"$user\", public", null, STATEMENT, "Sets the schema search order for names that are not schema-qualified.",
                    "user", "string"),
            new Setting("server_encoding", "UTF8", null, PRESET, "Shows the server (database) character set encoding.", "internal", "string"),
            new Setting("server_version", SqlEngine.SERVER_VERSION, null, PRESET, "Shows the server version.", "internal", "string"),
            new Setting("server_version_num", "150000", null, PRESET, "Shows the server version as an integer.", "internal", "integer"),
            new Setting("standard_conforming_strings", "on", null, "Version and Platform Compatibility / Previous PostgreSQL Versions",
                    "Causes '...' strings to treat backslashes literally.", "user", "bool"),
            new Setting("TimeZone", "UTC", null, LOCALE, "Sets the time zone for displaying and interpreting time stamps.", "user", "string"));

    private PgSettings() {
    }

    /** The parameter called {@code name} (case-insensitively, as PostgreSQL matches them), or null. */
    public static Setting find(String name) {
        if (name == null) {
            return null;
        }
        for (Setting s : ALL) {
            if (s.name().equalsIgnoreCase(name.trim())) {
                return s;
            }
        }
        return null;
    }

    /** Whether {@code text} is a boolean setting's spelling of {@code value} ({@code on}/{@code off}): true, yes, 1, on... */
    public static boolean sameBool(String text, String value) {
        boolean on = value.equals("on");
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "on", "true", "yes", "1", "t", "y" -> on;
            case "off", "false", "no", "0", "f", "n" -> !on;
            default -> false;
        };
    }

    /** The error PostgreSQL gives for a parameter it does not know. */
    public static SqlException unrecognized(String name) {
        return new SqlException(SqlState.UNDEFINED_OBJECT, "unrecognized configuration parameter \"" + name.toLowerCase(Locale.ROOT) + "\"");
    }

    /** {@code current_setting(name)}: the value; an unknown name is {@code 42704}. */
    public static String currentSetting(String name) {
        return currentSetting(name, false);
    }

    /** {@code current_setting(name, missing_ok)}: the value, or NULL for an unknown name when {@code missingOk}. */
    public static String currentSetting(String name, Boolean missingOk) {
        if (name == null) {
            return null;
        }
        if (name.equalsIgnoreCase("transaction_isolation")) {
            throw SqlException.notSupported("current_setting('transaction_isolation') (SHOW transaction_isolation answers it)");
        }
        Setting s = find(name);
        if (s == null) {
            if (Boolean.TRUE.equals(missingOk)) {
                return null;
            }
            throw unrecognized(name);
        }
        return s.value();
    }
}
