package dev.tandem.security;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * {@code tandem.jar token hash} (reads a secret on standard input, prints its hash and, on a second
 * line, its SCRAM-SHA-256 verifier) and {@code tandem.jar token new --name NAME --roles reader,writer
 * [--objects a,b]} (prints a fresh secret once and the configuration lines to paste, the verifier among
 * them).
 */
public final class TokenCommand {

    static final String USAGE = "usage: token hash   (reads the secret on standard input; prints its hash, then its SCRAM verifier)\n"
            + "       token new --name NAME --roles reader[,writer,admin,replica] [--objects name1,name2] [--index N]";

    private TokenCommand() {
    }

    /** Runs the command; returns the process exit status (0 ok, 2 usage). */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err, SecureRandom random) {
        try {
            if (args.length >= 1 && args[0].equals("hash") && args.length == 1) {
                String secret = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
                if (secret == null || secret.isBlank()) {
                    err.println("token hash: no secret on standard input");
                    return 2;
                }
                out.println(TokenHash.hash(secret.strip(), random));
                out.println(ScramVerifier.create(secret.strip(), random).encode());
                return 0;
            }
            if (args.length >= 1 && args[0].equals("new")) {
                String name = null;
                String roles = null;
                String objects = null;
                int index = 0;
                for (int i = 1; i < args.length; i++) {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("option " + args[i] + " needs a value");
                    }
                    switch (args[i]) {
                        case "--name" -> name = args[++i];
                        case "--roles" -> roles = args[++i];
                        case "--objects" -> objects = args[++i];
                        case "--index" -> index = Integer.parseInt(args[++i]);
                        default -> throw new IllegalArgumentException("unknown option " + args[i]);
                    }
                }
                if (name == null || roles == null) {
                    throw new IllegalArgumentException("--name and --roles are required");
                }
                Set<String> labels = new LinkedHashSet<>();
                for (String r : roles.split(",")) {
                    labels.add(Role.parse(r).label());
                }
                String secret = TokenHash.newSecret(random);
                String p = "tandem.security.tokens[" + index + "].";
                out.println("# The secret, shown only now; clients send it as 'Authorization: Bearer <secret>':");
                out.println(secret);
                out.println("# The configuration: properties to paste (or pass each as --KEY=VALUE); neither the hash nor the SCRAM verifier reveals the secret:");
                out.println(p + "name=" + name);
                out.println(p + "hash=" + TokenHash.hash(secret, random));
                out.println(p + "scram=" + ScramVerifier.create(secret, random).encode());
                out.println(p + "roles=" + String.join(",", labels));
                if (objects != null) {
                    out.println(p + "objects=" + objects);
                }
                return 0;
            }
            err.println(USAGE);
            return 2;
        } catch (IOException | IllegalArgumentException e) {
            err.println("token: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
    }
}
