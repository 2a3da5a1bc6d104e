package dev.tandem.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.testing.ReplicaProcess;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Damage to the log of a real server process (issue 13, item 2): one byte flipped in the middle of the
 * log makes the next start refuse, with an exit code other than 0 and a message naming the offset, the
 * intact records after it and the way out; starting with {@code --tandem.storage.repair=truncate} keeps
 * a backup of the damaged file and recovers every row written before the damage; a torn tail (the file
 * cut inside its last record) is cut at that record's start and every row before it is kept.
 *
 * <p>The test finds records by walking the file's frames itself (8-byte magic, then a 4-byte length, a
 * 4-byte checksum and the payload per frame) and locates a row's write by its distinctive string, so it
 * shares no code with the recovery it checks.
 */
class LogDamageProcessTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration START = Duration.ofSeconds(60);
    private static final int MAGIC_LENGTH = 8;
    private static final int FRAME_HEADER = 8;

    @TempDir
    Path dir;

    @Test
    @Timeout(240)
    void aFlippedByteMidLogRefusesUntilRepairedAndATornTailIsCut() throws Exception {
        Path log = dir.resolve("node").resolve("tandem.log");

        // Twenty rows, each its own acknowledged write (so its own record), then a clean stop.
        try (ReplicaProcess server = ReplicaProcess.start("node", dir, List.of()).awaitReady(START)) {
            ok(server.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\",\"nullable\":false},"
                    + "{\"name\":\"v\",\"type\":\"string\"}]}"));
            for (int i = 0; i < 20; i++) {
                ok(server.post("/v1/tables/t/rows", "{\"insert\":[[" + i + ",\"" + value(i) + "\"]]}"));
            }
        }

        // Flip one byte inside the record holding row 10: rows 0..9 come before the damage, 10..19 after it.
        byte[] original = Files.readAllBytes(log);
        List<long[]> frames = frames(original);
        int damaged = frameHolding(original, frames, value(10));
        long damagedAt = frames.get(damaged)[0];
        long nextAt = frames.get(damaged + 1)[0];
        int after = frames.size() - damaged - 1;
        int flipAt = indexOf(original, value(10).getBytes(StandardCharsets.UTF_8), (int) damagedAt);
        byte[] flipped = original.clone();
        flipped[flipAt] ^= 0x5A;
        Files.write(log, flipped);

        try (ReplicaProcess refused = ReplicaProcess.start("node", dir, List.of())) {
            Integer exit = refused.awaitExit(START);
            assertThat(exit).as("the server refuses to start on a log damaged in the middle:\n%s", refused.logTail()).isNotNull().isNotZero();
            assertThat(refused.output())
                    .contains("damaged at offset " + damagedAt)
                    .contains(after + " intact records follow from offset " + nextAt)
                    .contains("--tandem.storage.repair=truncate");
        }
        assertThat(Files.readAllBytes(log)).as("a refused start leaves the log as it was").isEqualTo(flipped);

        try (ReplicaProcess repaired = ReplicaProcess.start("node", dir, List.of("--tandem.storage.repair=truncate")).awaitReady(START)) {
            assertThat(ids(repaired)).as("the rows written before the damage").isEqualTo(range(0, 10));
            List<Path> backups;
            try (Stream<Path> files = Files.list(log.getParent())) {
                backups = files.filter(p -> p.getFileName().toString().startsWith("tandem.log.damaged-")).toList();
            }
            assertThat(backups).as("a backup of the damaged log").hasSize(1);
            assertThat(Files.readAllBytes(backups.get(0))).as("the backup is the damaged file as it was").isEqualTo(flipped);

            for (int i = 100; i < 105; i++) {
                ok(repaired.post("/v1/tables/t/rows", "{\"insert\":[[" + i + ",\"" + value(i) + "\"]]}"));
            }
            assertThat(ids(repaired)).isEqualTo(union(range(0, 10), range(100, 105)));
        }

        // Tear the tail: cut the file in the middle of the record holding row 104, as a crash during its write would.
        byte[] whole = Files.readAllBytes(log);
        List<long[]> now = frames(whole);
        int torn = frameHolding(whole, now, value(104));
        long tornAt = now.get(torn)[0];
        long cutTo = tornAt + FRAME_HEADER + now.get(torn)[1] / 2;
        try (FileChannel channel = FileChannel.open(log, StandardOpenOption.WRITE)) {
            channel.truncate(cutTo);
        }

        try (ReplicaProcess restarted = ReplicaProcess.start("node", dir, List.of()).awaitReady(START)) {
            assertThat(ids(restarted)).as("every row before the torn record").isEqualTo(union(range(0, 10), range(100, 104)));
            assertThat(restarted.output()).as("the log is cut where the torn record started")
                    .contains("cutting the torn tail of " + (cutTo - tornAt) + " bytes after " + torn + " intact records");
        }
        assertThat(Arrays.equals(Files.readAllBytes(log), 0, (int) tornAt, whole, 0, (int) tornAt))
                .as("the records before the torn one are kept byte for byte").isTrue();
    }

    private static String value(int i) {
        return "row-%05d-payload".formatted(i);
    }

    /** Each frame's offset and payload length, walking the file from the magic to its end. */
    private static List<long[]> frames(byte[] file) {
        List<long[]> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(file);
        int pos = MAGIC_LENGTH;
        while (pos + FRAME_HEADER <= file.length) {
            int length = b.getInt(pos);
            if (length <= 0 || pos + FRAME_HEADER + length > file.length) {
                break;
            }
            out.add(new long[] {pos, length});
            pos += FRAME_HEADER + length;
        }
        assertThat(pos).as("the test's own walk reaches the end of an undamaged log").isEqualTo(file.length);
        return out;
    }

    /** The index of the one frame whose payload holds {@code text}. */
    private static int frameHolding(byte[] file, List<long[]> frames, String text) {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        int found = -1;
        for (int f = 0; f < frames.size(); f++) {
            int start = (int) frames.get(f)[0] + FRAME_HEADER;
            int at = indexOf(file, needle, start);
            if (at >= 0 && at + needle.length <= start + frames.get(f)[1]) {
                assertThat(found).as("one record holds %s", text).isEqualTo(-1);
                found = f;
            }
        }
        assertThat(found).as("a record holds %s", text).isNotNegative();
        return found;
    }

    private static int indexOf(byte[] hay, byte[] needle, int from) {
        for (int i = from; i + needle.length <= hay.length; i++) {
            if (Arrays.equals(hay, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        return -1;
    }

    private static Set<Long> ids(ReplicaProcess server) throws IOException, InterruptedException {
        HttpResponse<String> r = ok(server.post("/v1/peek", "{\"from\":\"t\",\"isolation\":\"strict\"}"));
        Set<Long> ids = new TreeSet<>();
        for (JsonNode row : JSON.readTree(r.body()).get("rows")) {
            ids.add(row.get(0).asLong());
            assertThat(row.get(1).asString()).isEqualTo(value((int) row.get(0).asLong()));
        }
        return ids;
    }

    private static Set<Long> range(long from, long to) {
        Set<Long> s = new TreeSet<>();
        for (long i = from; i < to; i++) {
            s.add(i);
        }
        return s;
    }

    private static Set<Long> union(Set<Long> a, Set<Long> b) {
        Set<Long> s = new TreeSet<>(a);
        s.addAll(b);
        return s;
    }

    private static HttpResponse<String> ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 299);
        return r;
    }
}
