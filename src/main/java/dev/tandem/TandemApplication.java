package dev.tandem;

import dev.tandem.bench.BenchMain;
import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The Tandem server: a low-latency read server for incrementally maintained data. */
@SpringBootApplication
public class TandemApplication {

    /** Runs the server, or with {@code bench <scenario> ...} the load generator (which starts no server here). */
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("bench")) {
            BenchMain.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        SpringApplication.run(TandemApplication.class, args);
    }
}
