package dev.tandem.source.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Connections to the upstream PostgreSQL from a libpq-style connection string ({@code host=… port=…
 * dbname=… user=… sslmode=…}) and a password given apart (from a secret; never part of the string,
 * never stored): plain ones for reads and checks, and replication ones (logical, for a database) for
 * the slot.
 */
final class PgConnect {

    private static final Set<String> KEYS = Set.of("host", "port", "dbname", "user", "sslmode", "connect_timeout", "application_name");
    private static final int CONNECT_TIMEOUT_SECONDS = 10;

    private final Map<String, String> params;
    private final String password;

    private PgConnect(Map<String, String> params, String password) {
        this.params = params;
        this.password = password;
    }

    /**
     * Reads {@code connection}; throws {@link IllegalArgumentException} on a malformed string, an unknown
     * keyword, or a password in it (it must come from a secret).
     */
    static PgConnect of(String connection, String password) {
        return new PgConnect(parse(connection), password);
    }

    static Map<String, String> parse(String connection) {
        Map<String, String> out = new LinkedHashMap<>();
        int i = 0;
        int n = connection.length();
        while (i < n) {
            while (i < n && Character.isWhitespace(connection.charAt(i))) {
                i++;
            }
            if (i >= n) {
                break;
            }
            int eq = connection.indexOf('=', i);
            if (eq < 0) {
                throw new IllegalArgumentException("connection string: expected keyword=value at '" + connection.substring(i) + "'");
            }
            String key = connection.substring(i, eq).trim();
            i = eq + 1;
            StringBuilder value = new StringBuilder();
            if (i < n && connection.charAt(i) == '\'') {
                i++;
                while (i < n && connection.charAt(i) != '\'') {
                    if (connection.charAt(i) == '\\' && i + 1 < n) {
                        i++;
                    }
                    value.append(connection.charAt(i++));
                }
                if (i >= n) {
                    throw new IllegalArgumentException("connection string: unterminated quoted value of '" + key + "'");
                }
                i++;
            } else {
                while (i < n && !Character.isWhitespace(connection.charAt(i))) {
                    value.append(connection.charAt(i++));
                }
            }
            if (key.equals("password")) {
                throw new IllegalArgumentException("connection string: give the password with PASSWORD SECRET 'name' (property tandem.secrets.<name>), not in the string");
            }
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException("connection string: unknown keyword '" + key + "'; the keywords are " + KEYS.stream().sorted().toList());
            }
            out.put(key, value.toString());
        }
        if (!out.containsKey("dbname")) {
            throw new IllegalArgumentException("connection string: dbname is required");
        }
        if (!out.containsKey("user")) {
            throw new IllegalArgumentException("connection string: user is required");
        }
        return out;
    }

    private String url() {
        String host = params.getOrDefault("host", "localhost");
        String port = params.getOrDefault("port", "5432");
        return "jdbc:postgresql://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/" + params.get("dbname");
    }

    private Properties properties(boolean replication) {
        Properties p = new Properties();
        p.setProperty("user", params.get("user"));
        if (password != null) {
            p.setProperty("password", password);
        }
        if (params.containsKey("sslmode")) {
            p.setProperty("sslmode", params.get("sslmode"));
        }
        p.setProperty("connectTimeout", params.getOrDefault("connect_timeout", Integer.toString(CONNECT_TIMEOUT_SECONDS)));
        p.setProperty("ApplicationName", params.getOrDefault("application_name", "tandem"));
        p.setProperty("tcpKeepAlive", "true");
        if (replication) {
            p.setProperty("replication", "database");
            p.setProperty("assumeMinServerVersion", "10");
            p.setProperty("preferQueryMode", "simple");
        }
        return p;
    }

    /** A plain connection. */
    Connection plain() throws SQLException {
        return DriverManager.getConnection(url(), properties(false));
    }

    /** A logical replication connection to the database. */
    Connection replication() throws SQLException {
        return DriverManager.getConnection(url(), properties(true));
    }

    /** Where the source connects, for messages (never with the password). */
    String describe() {
        return params.getOrDefault("host", "localhost") + ":" + params.getOrDefault("port", "5432") + "/" + params.get("dbname");
    }
}
