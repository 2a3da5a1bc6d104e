package dev.tandem.multiplex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ProtocolJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.RowJson;
import dev.tandem.row.Schema;
import dev.tandem.runtime.ComputeRuntime;
import dev.tandem.runtime.Role;
import dev.tandem.storage.RowDiff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs the protocol workflows in {@code src/test/resources/workflows}: data files of commands and the
 * responses they must produce, each in SOLO and in two-runtime mode (unless the file says
 * {@code modes: two-runtime}). Directives, one per line ({@code #} starts a comment):
 * <pre>
 * modes: two-runtime                    run only in that mode
 * table ID TYPE...                      create a table (columns c0, c1, ...)
 * write ID ROW... as NAME               insert rows ({@code -[...]} deletes); remember the timestamp as ${NAME}
 * send JSON                             a protocol command through the multiplexer
 * send-to maintenance|interactive JSON  a command straight to one runtime (the solo runtime in SOLO)
 * expect JSON                           wait until a response contains JSON (subset match)
 * count N JSON                          exactly N responses so far contain JSON
 * last JSON ==> JSON                    the last response containing the first JSON contains the second
 * barrier                               wait until every command sent so far was applied by both runtimes
 * await-frontier ID > VALUE             wait until a Frontiers response for ID passes VALUE
 * suppressed > N                        the multiplexer dropped more than N non-owner frontier reports
 * if-two-runtime DIRECTIVE              the directive, in two-runtime mode only
 * clock freeze|resume                   stop the storage's wall clock (uppers stay put) or let it run on
 * </pre>
 * Values {@code ${NAME}} and {@code ${NAME+K}} are replaced by remembered timestamps; an expected
 * string starting with {@code ~} matches any string containing the rest.
 */
class WorkflowTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final Path DIR = Path.of("src/test/resources/workflows");
    static final Pattern VAR = Pattern.compile("\\$\\{([a-z0-9_]+)([+-][0-9]+)?}");

    static Stream<Arguments> workflows() throws IOException {
        List<Arguments> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path f : files.sorted().toList()) {
                boolean twoOnly = Files.readString(f).contains("modes: two-runtime");
                if (!twoOnly) {
                    out.add(Arguments.of(f.getFileName().toString(), false));
                }
                out.add(Arguments.of(f.getFileName().toString(), true));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} (two runtimes: {1})")
    @MethodSource("workflows")
    void runs(String file, boolean twoRuntimes) throws IOException {
        List<String> lines = Files.readAllLines(DIR.resolve(file));
        Map<String, Long> vars = new HashMap<>();
        try (ComputeTesting c = new ComputeTesting(twoRuntimes)) {
            int n = 0;
            for (String raw : lines) {
                n++;
                String line = raw.strip();
                if (line.isEmpty() || line.startsWith("#") || line.startsWith("modes:")) {
                    continue;
                }
                String at = file + ":" + n + ": " + line;
                try {
                    step(c, substitute(line, vars), vars);
                } catch (AssertionError | RuntimeException e) {
                    throw new AssertionError(at + "\n" + e.getMessage(), e);
                }
            }
            assertThat(c.fatal).as("fatal errors").isEmpty();
            assertThat(c.mux.maintenance().emitFailures() + c.mux.reader().emitFailures()).isZero();
        }
    }

    private static String substitute(String line, Map<String, Long> vars) {
        Matcher m = VAR.matcher(line);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            Long v = vars.get(m.group(1));
            if (v == null) {
                throw new AssertionError("unknown variable " + m.group(1));
            }
            long value = v + (m.group(2) == null ? 0 : Long.parseLong(m.group(2)));
            m.appendReplacement(sb, Long.toString(value));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    private void step(ComputeTesting c, String line, Map<String, Long> vars) {
        if (line.startsWith("if-two-runtime ")) {
            if (c.mux.twoRuntimes()) {
                step(c, line.substring("if-two-runtime ".length()), vars);
            }
            return;
        }
        String[] words = line.split("\\s+", 2);
        String rest = words.length > 1 ? words[1] : "";
        switch (words[0]) {
            case "table" -> {
                String[] parts = rest.split("\\s+");
                List<DatumType> types = new ArrayList<>();
                for (int i = 1; i < parts.length; i++) {
                    types.add(DatumType.fromJson(parts[i]));
                }
                c.storage.createTable(parts[0], Schema.ofTypes(types));
            }
            case "write" -> {
                String[] parts = rest.split("\\s+as\\s+");
                String[] head = parts[0].split("\\s+", 2);
                Schema schema = c.storage.schema(head[0]);
                List<RowDiff> diffs = new ArrayList<>();
                for (String r : head[1].split("\\s+(?=[-]?\\[)")) {
                    boolean delete = r.startsWith("-");
                    Row row = RowJson.row(JSON.readTree(delete ? r.substring(1) : r), schema);
                    diffs.add(new RowDiff(row, delete ? -1 : 1));
                }
                long ts = c.storage.write(head[0], diffs).block();
                if (parts.length > 1) {
                    vars.put(parts[1].strip(), ts);
                }
            }
            case "send" -> c.mux.send(ProtocolJson.parseCommand(rest));
            case "send-to" -> {
                String[] parts = rest.split("\\s+", 2);
                ComputeRuntime target = parts[0].equals("interactive") ? c.mux.reader() : c.mux.maintenance();
                ComputeCommand cmd = ProtocolJson.parseCommand(parts[1]);
                if (cmd instanceof ComputeCommand.CreateDataflow cd) {
                    cd.dataflow().indexExports().forEach(e -> c.mux.declareOwner(e.id(), target.role() == Role.INTERACTIVE ? Role.INTERACTIVE : Role.MAINTENANCE));
                }
                target.send(cmd);
            }
            case "expect" -> {
                JsonNode expected = JSON.readTree(rest);
                c.awaitResponse(r -> contains(JSON.readTree(ProtocolJson.write(r)), expected));
            }
            case "count" -> {
                String[] parts = rest.split("\\s+", 2);
                JsonNode expected = JSON.readTree(parts[1]);
                assertThat(c.count(r -> contains(JSON.readTree(ProtocolJson.write(r)), expected)))
                        .as("responses matching %s in %s", expected, c.responses).isEqualTo(Long.parseLong(parts[0]));
            }
            case "last" -> {
                String[] parts = rest.split("\\s*==>\\s*");
                JsonNode selector = JSON.readTree(parts[0]);
                JsonNode expected = JSON.readTree(parts[1]);
                List<JsonNode> matching = c.responses.stream().map(r -> JSON.readTree(ProtocolJson.write(r)))
                        .filter(r -> contains(r, selector)).toList();
                assertThat(matching).as("responses matching %s", selector).isNotEmpty();
                assertThat(contains(matching.get(matching.size() - 1), expected)).as("last of %s is %s", matching, expected).isTrue();
            }
            case "barrier" -> barrier(c);
            case "clock" -> {
                switch (rest.strip()) {
                    case "freeze" -> c.clock.freeze();
                    case "resume" -> c.clock.resume();
                    default -> throw new AssertionError("clock freeze|resume, not " + rest);
                }
            }
            case "await-frontier" -> {
                String[] parts = rest.split("\\s*>\\s*");
                String id = parts[0].strip();
                long value = Long.parseLong(parts[1].strip());
                c.awaitResponse(r -> r instanceof dev.tandem.protocol.ComputeResponse.Frontiers f && f.id().equals(id)
                        && !f.writeFrontier().isEmpty() && f.writeFrontier().time() > value);
            }
            case "suppressed" -> {
                long min = Long.parseLong(rest.replace(">", "").strip());
                await().atMost(Duration.ofSeconds(10)).until(() -> c.mux.suppressedFrontiers() > min);
            }
            default -> throw new AssertionError("unknown directive " + words[0]);
        }
    }

    /**
     * Waits until both runtimes applied every command sent so far: a peek of an unknown id is answered
     * by the multiplexer itself, so instead a no-op {@code UpdateConfiguration} is followed on each
     * runtime by a peek that can be answered at once.
     */
    private void barrier(ComputeTesting c) {
        for (ComputeRuntime r : c.mux.twoRuntimes() ? List.of(c.mux.maintenance(), c.mux.reader()) : List.of(c.mux.maintenance())) {
            java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
            r.runAfterCommands(done::countDown);
            await().atMost(Duration.ofSeconds(10)).until(() -> done.getCount() == 0);
        }
    }

    static boolean contains(JsonNode actual, JsonNode expected) {
        return dev.tandem.JsonSubset.contains(actual, expected);
    }
}
