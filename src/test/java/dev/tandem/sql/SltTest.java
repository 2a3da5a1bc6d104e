package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the hand-checked sqllogictest corpus ({@code src/test/resources/sql/*.slt}) through the SQL
 * engine over a real controller and runtimes; each file starts from an empty catalog.
 */
class SltTest {

    @TempDir
    Path dir;

    @Test
    void corpus() throws IOException {
        Path root = Paths.get("src/test/resources/sql");
        List<Path> files;
        try (Stream<Path> s = Files.list(root)) {
            files = s.filter(p -> p.toString().endsWith(".slt")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        List<String> failures = new ArrayList<>();
        int[] count = {0};
        for (Path f : files) {
            try (SqlStack stack = new SqlStack(Files.createDirectory(dir.resolve(f.getFileName().toString())))) {
                // a connection's session, as the wire protocol's: transaction blocks and cursors allowed
                SqlSession session = new SqlSession(true);
                try {
                    failures.addAll(SltRunner.run(f.getFileName().toString(), SltRunner.parse(Files.readString(f)),
                            (sql, line) -> {
                                SqlResult r = stack.run(sql, session);
                                return r.isQuery() ? r.rows() : List.of();
                            }, count));
                } finally {
                    session.close();
                }
            }
        }
        System.out.println("SltTest: " + count[0] + " records in " + files.size() + " files, " + failures.size() + " failed");
        assertThat(failures).as("%d of %d records failed", failures.size(), count[0]).isEmpty();
        assertThat(count[0]).isGreaterThanOrEqualTo(200);
    }
}
