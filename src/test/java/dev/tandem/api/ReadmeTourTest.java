package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.api.TandemServer.Response;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import tools.jackson.databind.JsonNode;

/**
 * Runs the README's tour: every {@code curl} line of the {@code sh} block under "## Tour", translated
 * to an HTTP request against a fresh server, and checks each answer against the {@code # →} line after
 * it (a JSON subset: objects may carry more fields; {@code <int>} matches any integer). GETs are
 * retried until they match, as the tour tells the reader to repeat them.
 */
class ReadmeTourTest {

    @TempDir
    Path dir;

    record Step(String command, String expected) {
    }

    record Curl(HttpMethod method, String url, MediaType type, String data) {
    }

    @Test
    void theTourInTheReadmeWorksAsWritten() throws IOException {
        List<Step> steps = tour(Files.readString(Path.of("README.md")));
        assertThat(steps).hasSizeGreaterThanOrEqualTo(10);
        try (TandemServer s = new TandemServer(dir, Map.of())) {
            runCurls(s, steps);
        }
    }

    /** A statement of the README's SQL block and the lines psql prints for it. */
    record SqlStep(String statement, List<String> expected) {
    }

    /**
     * The README's SQL section: its psql block run through {@code psql} itself (when on the machine) and,
     * on a second fresh server, through the JDBC driver, statement by statement, each checked against its
     * {@code -- →} lines; then its {@code curl} block against {@code POST /v1/sql}.
     */
    @Test
    void theSqlSectionOfTheReadmeWorksAsWritten() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        List<SqlStep> block = sqlBlock(readme);
        assertThat(block).hasSizeGreaterThanOrEqualTo(20);
        List<Step> steps = tour(readme, "\n## SQL");
        assertThat(steps).hasSizeGreaterThanOrEqualTo(5);
        String psql = dev.tandem.pgwire.PgWireTesting.psql();
        if (psql == null) {
            assertThat(System.getenv("CI")).as("psql on the PATH on CI (.ci/run installs postgresql-client)").isNotEqualToIgnoringCase("true");
            System.err.println("!!! ReadmeTourTest: no psql on the PATH (apt-get install postgresql-client); the README's SQL tour is run through JDBC only");
        }
        try (TandemServer s = new TandemServer(dir.resolve("psql"), Map.of())) {
            int port = s.context.getBean(dev.tandem.config.SqlConfiguration.PgWireHolder.class).port();
            if (psql != null) {
                List<List<String>> printed = throughPsql(psql, port, block);
                for (int i = 0; i < block.size(); i++) {
                    assertThat(matches(printed.get(i), block.get(i).expected())).as("psql: %s\n  printed %s\n  README says %s",
                            block.get(i).statement(), printed.get(i), block.get(i).expected()).isTrue();
                }
            }
            runCurls(s, steps);
        }
        try (TandemServer s = new TandemServer(dir.resolve("jdbc"), Map.of())) {
            int port = s.context.getBean(dev.tandem.config.SqlConfiguration.PgWireHolder.class).port();
            try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/tandem?user=me&sslmode=disable");
                    java.sql.Statement st = c.createStatement()) {
                for (SqlStep step : block) {
                    List<String> got = psqlLines(st, step.statement());
                    assertThat(matches(got, step.expected())).as("JDBC: %s\n  answered %s\n  README says %s", step.statement(), got, step.expected())
                            .isTrue();
                }
            }
        }
    }

    /**
     * The README's Security walkthrough, line by line as a new user runs it: its {@code token new}
     * commands (run in-process, their output written to the files the README names), the variables it
     * reads from those files, the secured server it starts on {@code 0.0.0.0} with the printed
     * configuration lines, then each {@code curl} of the next block, whose status must be the one its
     * comment names (401 also with {@code WWW-Authenticate: Bearer}). A line of the first block this
     * test does not understand fails it, so the walkthrough cannot drift from what is checked.
     */
    @Test
    void theSecurityWalkthroughOfTheReadmeWorksAsWritten() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        int section = readme.indexOf("\n## Security");
        assertThat(section).isPositive();
        int start = readme.indexOf("```sh\n", section);
        int end = readme.indexOf("\n```", start + 6);
        Map<String, String> vars = new java.util.HashMap<>();
        Map<String, Object> props = new java.util.LinkedHashMap<>();
        boolean started = false;
        java.util.regex.Pattern tokenNew = java.util.regex.Pattern.compile("java -jar target/tandem\\.jar token (new .*) > (\\S+)");
        java.util.regex.Pattern assign = java.util.regex.Pattern.compile("(\\w+)=\\$\\(sed -n (\\d+)p (\\S+)\\)");
        java.util.regex.Pattern server = java.util.regex.Pattern.compile("java -jar target/tandem\\.jar (.*)\\$\\(grep -h '\\^tandem' (.*) \\| sed 's/\\^/--/'\\)");
        for (String raw : readme.substring(start + 6, end).split("\n")) {
            String line = raw.replaceFirst("\\s+#.*$", "").strip();
            java.util.regex.Matcher m;
            if (line.isEmpty() || line.startsWith("source bin/jdk.sh") || line.startsWith("mvn ")) {
                continue;
            }
            if ((m = tokenNew.matcher(line)).matches()) {
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                int exit = dev.tandem.security.TokenCommand.run(words(m.group(1)).toArray(String[]::new), java.io.InputStream.nullInputStream(),
                        new java.io.PrintStream(out, true, StandardCharsets.UTF_8), System.err, new java.security.SecureRandom());
                assertThat(exit).as(line).isZero();
                Files.write(dir.resolve(m.group(2)), out.toByteArray());
            } else if (assign.matcher(line).find()) {
                for (String part : line.split(";")) {
                    m = assign.matcher(part.strip());
                    assertThat(m.matches()).as(part).isTrue();
                    vars.put(m.group(1), Files.readAllLines(dir.resolve(m.group(3))).get(Integer.parseInt(m.group(2)) - 1));
                }
            } else if ((m = server.matcher(line)).matches()) {
                List<String> args = new ArrayList<>(words(m.group(1)));
                for (String file : words(m.group(2))) {
                    Files.readAllLines(dir.resolve(file)).stream().filter(l -> l.startsWith("tandem")).forEach(l -> args.add("--" + l));
                }
                for (String a : args) {
                    assertThat(a).as("a server argument").startsWith("--").contains("=");
                    props.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
                }
                started = true;
            } else {
                throw new AssertionError("a line of the README's Security walkthrough this test does not know: " + line);
            }
        }
        assertThat(started).as("the walkthrough starts a server").isTrue();
        assertThat(props).containsEntry("server.address", "0.0.0.0").containsKey("tandem.security.tokens[0].hash");
        assertThat(vars).containsKeys("READER", "WRITER");

        int curls = readme.indexOf("```sh\n", end + 4);
        String block = readme.substring(curls + 6, readme.indexOf("\n```", curls + 6)).replace("\\\n", " ");
        int checked = 0;
        try (TandemServer s = new TandemServer(dir.resolve("data"), props)) {
            for (String raw : block.split("\n")) {
                if (!raw.strip().startsWith("curl ")) {
                    continue;
                }
                int hash = raw.lastIndexOf("# ");
                String comment = raw.substring(hash + 2).strip();
                java.util.regex.Matcher status = java.util.regex.Pattern.compile("^(\\d{3})").matcher(comment);
                assertThat(status.find()).as("each curl's comment starts with its status: " + raw).isTrue();
                String command = raw.substring(0, hash);
                for (Map.Entry<String, String> v : vars.entrySet()) {
                    command = command.replace("$" + v.getKey(), v.getValue());
                }
                Response r = securedCurl(s, command);
                assertThat(r.status()).as(raw + "\n  answered " + r.text()).isEqualTo(Integer.parseInt(status.group(1)));
                checked++;
            }
        }
        assertThat(checked).as("curls of the walkthrough").isGreaterThanOrEqualTo(6);
    }

    /** One curl of the Security walkthrough: its method, URL, {@code Content-Type}, {@code Authorization} and body. */
    private static Response securedCurl(TandemServer s, String line) {
        Iterator<String> it = words(line).iterator();
        assertThat(it.next()).isEqualTo("curl");
        HttpMethod method = null;
        String url = null;
        String data = null;
        org.springframework.http.HttpHeaders headers = new org.springframework.http.HttpHeaders();
        while (it.hasNext()) {
            String w = it.next();
            switch (w) {
                case "-s" -> { }
                case "-X" -> method = HttpMethod.valueOf(it.next());
                case "-H" -> {
                    String[] h = it.next().split(":", 2);
                    headers.add(h[0].strip(), h[1].strip());
                }
                case "-d" -> data = it.next();
                default -> {
                    assertThat(w).as("unsupported curl option in the walkthrough").doesNotStartWith("-");
                    url = w;
                }
            }
        }
        String uri = url.replaceFirst("^(http://)?localhost:8080", "");
        WebClient.RequestBodySpec spec = s.oneShot.method(method != null ? method : data != null ? HttpMethod.POST : HttpMethod.GET).uri(uri)
                .headers(h -> h.addAll(headers));
        String body = data;
        return (body == null ? spec : spec.bodyValue(body)).exchangeToMono(r -> r.bodyToMono(String.class).defaultIfEmpty("").map(text -> {
            if (r.statusCode().value() == 401) {
                assertThat(r.headers().asHttpHeaders().getFirst("WWW-Authenticate")).startsWith("Bearer");
            }
            return new Response(r.statusCode().value(), r.headers().contentType().orElse(null), null, text);
        })).block(Duration.ofSeconds(30));
    }

    /** The statements of the {@code sql} block of the SQL section, each with its {@code -- →} lines. */
    static List<SqlStep> sqlBlock(String readme) {
        int section = readme.indexOf("\n## SQL");
        int start = readme.indexOf("```sql\n", section);
        String text = readme.substring(start + 7, readme.indexOf("\n```", start + 7));
        List<SqlStep> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("-- →")) {
                assertThat(out).as("an expectation before any statement").isNotEmpty();
                out.get(out.size() - 1).expected().add(line.substring(4).strip());
            } else if (!line.isBlank()) {
                out.add(new SqlStep(line, new ArrayList<>()));
            }
        }
        return out;
    }

    /** Whether printed lines are the expected ones, an expected line ending in {@code ...} matching any line it starts. */
    static boolean matches(List<String> printed, List<String> expected) {
        if (printed.size() != expected.size()) {
            return false;
        }
        for (int i = 0; i < printed.size(); i++) {
            String e = expected.get(i);
            if (e.endsWith("...") ? !printed.get(i).startsWith(e.substring(0, e.length() - 3)) : !printed.get(i).equals(e)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs the statements in one psql session ({@code -A -t}, each echoed before its output, errors as
     * {@code \set VERBOSITY sqlstate} prints them) and returns the lines printed for each.
     */
    private List<List<String>> throughPsql(String psql, int port, List<SqlStep> block) throws Exception {
        Path script = dir.resolve("readme-tour.sql");
        Files.writeString(script, String.join("\n", block.stream().map(SqlStep::statement).toList()) + "\n");
        Process p = new ProcessBuilder(psql, "-X", "-A", "-t", "-e", "-v", "VERBOSITY=sqlstate", "-h", "127.0.0.1", "-p", Integer.toString(port),
                "-U", "me", "-d", "tandem", "-f", script.toString())
                .redirectErrorStream(true)
                .start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)).as("psql finished").isTrue();
        List<List<String>> printed = new ArrayList<>();
        int next = 0;
        for (String line : out.split("\n")) {
            if (next < block.size() && line.equals(block.get(next).statement())) {
                printed.add(new ArrayList<>());
                next++;
            } else {
                assertThat(printed).as("psql printed before the first statement: %s\n%s", line, out).isNotEmpty();
                printed.get(printed.size() - 1).add(line.replaceFirst("^psql:[^:]*:\\d+: ", ""));
            }
        }
        assertThat(printed).as("psql echoed every statement:\n%s", out).hasSize(block.size());
        return printed;
    }

    /** What psql -A shows for a statement, as the README writes it: rows as {@code a|b}, a command's tag, or {@code ERROR:  sqlstate}. */
    private static List<String> psqlLines(java.sql.Statement st, String sql) {
        List<String> out = new ArrayList<>();
        try {
            if (st.execute(sql)) {
                try (java.sql.ResultSet rs = st.getResultSet()) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        List<String> row = new ArrayList<>();
                        for (int i = 1; i <= n; i++) {
                            row.add(rs.getString(i) == null ? "" : rs.getString(i));
                        }
                        out.add(String.join("|", row));
                    }
                }
            } else {
                String verb = sql.strip().split("\\s+")[0].toUpperCase(java.util.Locale.ROOT);
                String tag = sql.strip().toUpperCase(java.util.Locale.ROOT).replaceAll("^(CREATE \\w+|DROP \\w+|SET|DELETE|INSERT).*", "$1");
                out.add(verb.equals("DELETE") ? "DELETE " + st.getUpdateCount() : verb.equals("INSERT") ? "INSERT 0 " + st.getUpdateCount() : tag);
            }
        } catch (java.sql.SQLException e) {
            out.add("ERROR:  " + e.getSQLState());
        }
        return out;
    }

    private static void runCurls(TandemServer s, List<Step> steps) {
        assertThat(steps).allSatisfy(step -> assertThat(step.expected()).as(step.command()).isNotNull());
        {
            for (Step step : steps) {
                Curl c = curl(step.command());
                String uri = c.url().replaceFirst("^(http://)?localhost:8080", "");
                JsonNode expected = TandemServer.json(step.expected().replace("<int>", "\"<int>\""));
                Response[] last = new Response[1];
                if (c.method() == HttpMethod.GET) {
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
                        last[0] = s.call(c.method(), uri, c.type(), null);
                        return dev.tandem.JsonSubset.contains(last[0].json(), expected);
                    });
                } else {
                    last[0] = s.call(c.method(), uri, c.type(), c.data() == null ? null : c.data().getBytes(StandardCharsets.UTF_8));
                    assertThat(dev.tandem.JsonSubset.contains(last[0].json(), expected)).as(step.command() + "\n  answered " + last[0].text()
                            + "\n  expected " + step.expected()).isTrue();
                }
            }
        }
    }

    /** The commands of the tour and the expectation after each. */
    static List<Step> tour(String readme) {
        return tour(readme, "\n## Tour");
    }

    /** The commands of the first {@code sh} block of a section and the expectation after each. */
    static List<Step> tour(String readme, String heading) {
        int section = readme.indexOf(heading);
        assertThat(section).as("README has a '" + heading.strip() + "' section").isPositive();
        int start = readme.indexOf("```sh\n", section);
        int end = readme.indexOf("\n```", start + 6);
        List<Step> steps = new ArrayList<>();
        String command = null;
        for (String line : readme.substring(start + 6, end).split("\n")) {
            String l = line.strip();
            if (l.startsWith("curl ")) {
                if (command != null) {
                    steps.add(new Step(command, null));
                }
                command = l;
            } else if (l.startsWith("# →")) {
                assertThat(command).as("expectation without a command: " + l).isNotNull();
                steps.add(new Step(command, l.substring(3).strip()));
                command = null;
            }
        }
        if (command != null) {
            steps.add(new Step(command, null));
        }
        return steps;
    }

    /** Splits a command line as a POSIX shell would for quotes (single, double) and blanks. */
    static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder w = null;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (ch == '\'') {
                int j = line.indexOf('\'', i + 1);
                w = w == null ? new StringBuilder() : w;
                w.append(line, i + 1, j);
                i = j;
            } else if (ch == '"') {
                w = w == null ? new StringBuilder() : w;
                for (i++; line.charAt(i) != '"'; i++) {
                    if (line.charAt(i) == '\\') {
                        i++;
                    }
                    w.append(line.charAt(i));
                }
            } else if (Character.isWhitespace(ch)) {
                if (w != null) {
                    out.add(w.toString());
                    w = null;
                }
            } else {
                w = w == null ? new StringBuilder() : w;
                w.append(ch);
            }
        }
        if (w != null) {
            out.add(w.toString());
        }
        return out;
    }

    static Curl curl(String line) {
        Iterator<String> it = words(line).iterator();
        assertThat(it.next()).isEqualTo("curl");
        HttpMethod method = null;
        String url = null;
        MediaType type = null;
        String data = null;
        while (it.hasNext()) {
            String w = it.next();
            switch (w) {
                case "-s", "-sS", "--silent" -> { }
                case "-X", "--request" -> method = HttpMethod.valueOf(it.next());
                case "-H", "--header" -> {
                    String[] h = it.next().split(":", 2);
                    assertThat(h[0].strip()).as("only Content-Type headers are translated").isEqualToIgnoringCase("Content-Type");
                    type = MediaType.parseMediaType(h[1].strip());
                }
                case "-d", "--data" -> data = it.next();
                default -> {
                    assertThat(w).as("unsupported curl option in the tour").doesNotStartWith("-");
                    url = w;
                }
            }
        }
        if (method == null) {
            method = data != null ? HttpMethod.POST : HttpMethod.GET;
        }
        if (data != null && type == null) {
            type = MediaType.APPLICATION_FORM_URLENCODED;
        }
        return new Curl(method, url, type, data);
    }
}
