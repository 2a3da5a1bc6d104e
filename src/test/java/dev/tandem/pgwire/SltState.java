package dev.tandem.pgwire;

import dev.tandem.pgwire.SltCorpusRunner.Counts;
import dev.tandem.pgwire.SltCorpusRunner.Outcome;
import dev.tandem.pgwire.SltCorpusRunner.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A run's state directory: one JSON line per finished file (its counts and every record that did not pass), appended
 * when the file ends, so that a run killed mid-file loses that file only and a later run with the same directory goes
 * on where it stopped.
 */
final class SltState {

    static final String FILE_NAME = "slt-state.jsonl";
    static final JsonMapper JSON = JsonMapper.builder().build();

    /** One finished file: where and how it ran, its counts, and its records that neither passed nor were skipped. */
    record FileOutcome(String file, String target, String commit, int limit, int timeoutSeconds, double seconds, String finishedAt,
            int records, Counts counts, List<Result> notPassed) {
    }

    /** What a state directory holds: the last line of each file, in the order first met, and how many lines were unreadable. */
    record Contents(Map<String, FileOutcome> files, int unreadableLines) {
    }

    private final Path file;

    private SltState(Path file) {
        this.file = file;
    }

    /**
     * The state in {@code dir} (created if missing). A last line without its end (the run was killed while writing it)
     * is cut off, so that the next line appended starts on a line of its own.
     */
    static SltState open(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(FILE_NAME);
        if (Files.exists(file)) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                long size = ch.size();
                long keep = size;
                ByteBuffer one = ByteBuffer.allocate(1);
                while (keep > 0) {
                    one.clear();
                    ch.read(one, keep - 1);
                    if (one.get(0) == '\n') {
                        break;
                    }
                    keep--;
                }
                if (keep < size) {
                    ch.truncate(keep);
                    ch.force(true);
                }
            }
        }
        return new SltState(file);
    }

    /** Appends one file's line in a single write, forced to the disk before it returns. */
    synchronized void append(FileOutcome outcome) throws IOException {
        byte[] line = (JSON.writeValueAsString(toJson(outcome)) + "\n").getBytes(StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ByteBuffer b = ByteBuffer.wrap(line);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
    }

    /** The directory's files; a line that does not read as one (a torn or foreign line) is counted, not fatal. */
    static Contents read(Path dir) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        Map<String, FileOutcome> files = new LinkedHashMap<>();
        int unreadable = 0;
        if (!Files.exists(file)) {
            return new Contents(files, 0);
        }
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            try {
                FileOutcome o = fromJson(JSON.readTree(line));
                files.put(o.file(), o);
            } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
                unreadable++;
            }
        }
        return new Contents(files, unreadable);
    }

    static ObjectNode toJson(FileOutcome o) {
        ObjectNode n = JSON.createObjectNode();
        n.put("file", o.file()).put("target", o.target()).put("commit", o.commit()).put("limit", o.limit())
                .put("timeoutSeconds", o.timeoutSeconds()).put("seconds", Math.round(o.seconds() * 10) / 10.0)
                .put("finishedAt", o.finishedAt()).put("records", o.records());
        n.set("counts", countsJson(o.counts()));
        ArrayNode np = n.putArray("notPassed");
        o.notPassed().forEach(r -> np.add(resultJson(r)));
        return n;
    }

    static ObjectNode countsJson(Counts c) {
        ObjectNode n = JSON.createObjectNode();
        for (Outcome o : Outcome.values()) {
            n.put(o.name().toLowerCase(Locale.ROOT), c.get(o));
        }
        ObjectNode states = n.putObject("refusedBySqlState");
        c.refusedBySqlState().forEach(states::put);
        return n;
    }

    static ObjectNode resultJson(Result r) {
        ObjectNode n = JSON.createObjectNode();
        n.put("file", r.file()).put("line", r.line()).put("outcome", r.outcome().name().toLowerCase(Locale.ROOT))
                .put("sqlState", r.sqlState()).put("sql", r.sql()).put("detail", r.detail());
        return n;
    }

    private static FileOutcome fromJson(JsonNode n) {
        String file = n.required("file").asString();
        Counts counts = new Counts();
        JsonNode c = n.required("counts");
        for (Outcome o : Outcome.values()) {
            counts.byOutcome.put(o, c.required(o.name().toLowerCase(Locale.ROOT)).asInt());
        }
        c.required("refusedBySqlState").properties().forEach(e -> counts.refusedBySqlState.put(e.getKey(), e.getValue().asInt()));
        List<Result> notPassed = new ArrayList<>();
        for (JsonNode r : n.required("notPassed")) {
            notPassed.add(new Result(file, r.required("line").asInt(), Outcome.valueOf(r.required("outcome").asString().toUpperCase(Locale.ROOT)),
                    r.required("sqlState").asString(), r.required("sql").asString(), r.required("detail").asString()));
        }
        return new FileOutcome(file, n.required("target").asString(), n.required("commit").asString(), n.required("limit").asInt(),
                n.required("timeoutSeconds").asInt(), n.required("seconds").asDouble(), n.required("finishedAt").asString(),
                n.required("records").asInt(), counts, notPassed);
    }

    static void writeJson(Path out, JsonNode json) {
        try {
            if (out.toAbsolutePath().getParent() != null) {
                Files.createDirectories(out.toAbsolutePath().getParent());
            }
            Files.writeString(out, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
