package dev.tandem.pgwire;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/** What the wire-protocol tests share: finding {@code psql}. */
public final class PgWireTesting {

    private PgWireTesting() {
    }

    /**
     * The {@code psql} on the PATH, for a test that needs it: without one, a failure on CI ({@code .ci/run} installs it) and
     * elsewhere the test skipped, saying so on stderr under {@code test}'s name.
     */
    public static String requirePsql(String test) {
        String psql = psql();
        if (psql == null) {
            Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")), "no psql on the PATH on CI: .ci/run installs postgresql-client");
            System.err.println("!!! " + test + " SKIPPED: no psql on the PATH (apt-get install postgresql-client)");
        }
        Assumptions.assumeTrue(psql != null, "psql is not installed");
        return psql;
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
