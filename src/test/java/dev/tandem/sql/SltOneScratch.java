package dev.tandem.sql;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SltOneScratch {
    @TempDir
    Path dir;

    @Test
    void one() throws Exception {
        Path f = Paths.get(System.getProperty("slt.file"));
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            int[] count = {0};
            List<String> failures = SltRunner.run(f.getFileName().toString(), SltRunner.parse(Files.readString(f)),
                    (sql, line) -> {
                        SqlResult r = stack.run(sql, session);
                        return r.isQuery() ? r.rows() : List.of();
                    }, count);
            Files.writeString(Paths.get("/tmp/jsonb/failures.txt"), count[0] + " records, " + failures.size() + " failed\n" + String.join("\n", failures));
            session.close();
        }
    }
}
