package dev.tandem.sql;

import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScratchTest {
    @TempDir
    Path dir;

    @Test
    void scratch() throws Exception {
        try (SqlStack s = new SqlStack(dir)) {
            for (String q : java.nio.file.Files.readAllLines(Path.of("/tmp/scratch.sql"))) {
                if (q.isBlank()) continue;
                try {
                    SqlResult r = s.run(q, new SqlSession());
                    System.out.println("OK  " + q + " -> " + r.columns() + " " + r.rows().stream().map(Arrays::toString).toList());
                } catch (Exception e) {
                    System.out.println("ERR " + q + " -> " + e);
                }
            }
        }
    }
}
