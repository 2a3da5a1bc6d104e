package dev.tandem.pgwire;

import java.nio.file.Files;
import java.nio.file.Path;

/** What the wire-protocol tests share: finding {@code psql}. */
public final class PgWireTesting {

    private PgWireTesting() {
    }

    /** The {@code psql} on the PATH, or null. */
    public static String psql() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(d, "psql");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
