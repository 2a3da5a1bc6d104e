package dev.tandem;

import dev.tandem.bench.BenchMain;
import dev.tandem.security.TokenCommand;
import io.netty.util.ResourceLeakDetector;
import java.security.SecureRandom;
import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The Tandem server: a low-latency read server for incrementally maintained data. */
@SpringBootApplication
public class TandemApplication {

    /**
     * Runs the server, or with {@code bench <scenario> ...} the load generator (which starts no server
     * here), or with {@code token hash|new ...} the API token tool.
     */
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("bench")) {
            BenchMain.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("token")) {
            int status = TokenCommand.run(Arrays.copyOfRange(args, 1, args.length), System.in, System.out, System.err, new SecureRandom());
            if (status != 0) {
                System.exit(status);
            }
            return;
        }
        // Netty's leak detector samples buffers and records a stack trace for each it tracks: a cost on every
        // read's messages. The server leaves it off unless asked for (-Dio.netty.leakDetection.level=...);
        // the tests, which do not start here, keep Netty's default and find leaks.
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        SpringApplication.run(TandemApplication.class, args);
    }
}
