package dev.tandem;

import dev.tandem.bench.BenchMain;
import dev.tandem.security.TokenCommand;
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
        keepAliveWorkaround();
        SpringApplication.run(TandemApplication.class, args);
    }

    /**
     * Reactor Netty 1.3.6 (Boot 4.0.7's) can stop reading a keep-alive connection when the next request
     * arrives before the previous one's operations terminate (reactor-netty issues 4361 and 4347; our
     * load generator saw it on a few connections under closed-loop load). Flushing the last response
     * when no read is pending dispatches such a request at once instead of queueing it. An explicit
     * setting of the property wins.
     */
    static void keepAliveWorkaround() {
        if (System.getProperty("reactor.netty.http.server.lastFlushWhenNoRead") == null) {
            System.setProperty("reactor.netty.http.server.lastFlushWhenNoRead", "true");
        }
    }
}
