package dev.tandem.pgwire;

import static dev.tandem.pgwire.PgRawClient.bind;
import static dev.tandem.pgwire.PgRawClient.concat;
import static dev.tandem.pgwire.PgRawClient.cstring;
import static dev.tandem.pgwire.PgRawClient.describe;
import static dev.tandem.pgwire.PgRawClient.execute;
import static dev.tandem.pgwire.PgRawClient.frame;
import static dev.tandem.pgwire.PgRawClient.int16;
import static dev.tandem.pgwire.PgRawClient.int32;
import static dev.tandem.pgwire.PgRawClient.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.pgwire.PgRawClient.Message;
import dev.tandem.sql.SqlTesting;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each malformed field of an extended-protocol or simple-query message, written as raw bytes, is answered
 * with PostgreSQL's SQLSTATE for it: {@code 08P01} for a count or a length that does not fit (the session
 * then skips to Sync), {@code 22023} for a format code other than 0 and 1, {@code 22021} for text that is
 * not UTF-8; the connection then answers {@code SELECT 1}. A start-up packet over 10,000 bytes is refused
 * from its length alone and the connection closed.
 */
class PgWireMalformedMessageTest {

    @TempDir
    static Path dir;
    static SqlTesting.Stack stack;
    static PgWireServer server;
    PgRawClient client;

    @BeforeAll
    static void start() throws IOException {
        stack = SqlTesting.stack(dir);
        server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
        try (PgRawClient c = new PgRawClient(server.port(), 30_000)) {
            assertThat(c.startup("ada")).last().extracting(Message::type).isEqualTo('Z');
            c.send('Q', cstring("CREATE TABLE t (a bigint)"));
            assertThat(c.untilReady()).noneMatch(m -> m.type() == 'E');
            c.send('Q', cstring("INSERT INTO t VALUES (1), (2)"));
            assertThat(c.untilReady()).noneMatch(m -> m.type() == 'E');
        }
    }

    @AfterAll
    static void stop() {
        server.close();
        stack.close();
    }

    @BeforeEach
    void connect() throws IOException {
        client = new PgRawClient(server.port(), 30_000);
        assertThat(client.startup("ada")).last().extracting(Message::type).isEqualTo('Z');
        client.send('P', parse("one", "SELECT a FROM t WHERE a = $1", 20));
        client.send('P', parse("three", "SELECT a FROM t WHERE a = $1 OR a = $2 OR a = $3", 20, 20, 20));
        client.send('P', parse("columns", "SELECT a, a + 1, a + 2 FROM t"));
        client.send('S', new byte[0]);
        assertThat(client.untilReady()).extracting(Message::type).containsExactly('1', '1', '1', 'Z');
    }

    @AfterEach
    void disconnect() throws IOException {
        client.close();
    }

    // ------------------------------------------------------------------ Bind

    @Test
    void bindWithFewerParameterFormatsThanParameters() throws IOException {
        assertRefused("08P01", "bind message has 2 parameter formats but 3 parameters",
                frame('B', bind("", "three", new int[] {0, 0}, new String[] {"1", "2", "3"}, new int[0])));
    }

    @Test
    void bindWithAParameterFormatCountOfMinusOne() throws IOException {
        assertRefused("08P01", "insufficient data left in message",
                frame('B', concat(cstring(""), cstring("one"), int16(-1), int16(0), int16(1), int32(1), "1".getBytes(StandardCharsets.UTF_8), int16(0))));
    }

    @Test
    void bindWithAParameterCountOfMinusOne() throws IOException {
        assertRefused("08P01", "bind message supplies 65535 parameters, but prepared statement \"one\" requires 1",
                frame('B', concat(cstring(""), cstring("one"), int16(0), int16(-1), int16(0))));
    }

    @Test
    void bindOfAnUnknownStatementIsRefusedBeforeItsTruncatedFieldsAreRead() throws IOException {
        assertRefused("26000", "prepared statement \"nope\" does not exist", frame('B', concat(cstring(""), cstring("nope"), int16(3))));
    }

    @Test
    void bindWithTheWrongNumberOfParametersIsRefusedBeforeItsTruncatedValuesAreRead() throws IOException {
        assertRefused("08P01", "bind message supplies 2 parameters, but prepared statement \"one\" requires 1",
                frame('B', concat(cstring(""), cstring("one"), int16(0), int16(2), int32(5))));
    }

    @Test
    void aBadParameterFormatIsRefusedBeforeTheTruncatedValueAfterIt() throws IOException {
        assertRefused("22023", "unsupported format code: 7",
                frame('B', concat(cstring(""), cstring("three"), int16(3), int16(7), int16(0), int16(0), int16(3), int32(1), new byte[] {'1'}, int32(9))));
    }

    @Test
    void aBadResultFormatIsRefusedBeforeBytesAfterTheLastField() throws IOException {
        assertRefused("22023", "unsupported format code: 7",
                frame('B', concat(cstring(""), cstring("columns"), int16(0), int16(0), int16(1), int16(7), new byte[] {1})));
    }

    @Test
    void bindWithAParameterLengthBelowMinusOne() throws IOException {
        assertRefused("08P01", "insufficient data left in message",
                frame('B', concat(cstring(""), cstring("one"), int16(0), int16(1), int32(-2), int16(0))));
    }

    @Test
    void bindWithAParameterLengthPastTheEndOfTheMessage() throws IOException {
        assertRefused("08P01", "insufficient data left in message",
                frame('B', concat(cstring(""), cstring("one"), int16(0), int16(1), int32(Integer.MAX_VALUE), new byte[] {'1'})));
    }

    @Test
    void bindWithTheWrongNumberOfParameters() throws IOException {
        assertRefused("08P01", "bind message supplies 2 parameters, but prepared statement \"one\" requires 1",
                frame('B', bind("", "one", new int[0], new String[] {"1", "2"}, new int[0])));
    }

    @Test
    void bindWithTwoResultFormatsForThreeColumns() throws IOException {
        assertRefused("08P01", "bind message has 2 result formats but query has 3 columns",
                frame('B', bind("", "columns", new int[0], new String[0], new int[] {0, 1})));
    }

    @Test
    void bindWithResultFormatCodeSeven() throws IOException {
        assertRefused("22023", "unsupported format code: 7", frame('B', bind("", "columns", new int[0], new String[0], new int[] {7})));
    }

    @Test
    void bindWithParameterFormatCodeSeven() throws IOException {
        assertRefused("22023", "unsupported format code: 7", frame('B', bind("", "one", new int[] {7}, new String[] {"1"}, new int[0])));
    }

    @Test
    void bindWithBytesAfterTheLastField() throws IOException {
        assertRefused("08P01", "invalid message format",
                frame('B', concat(bind("", "one", new int[0], new String[] {"1"}, new int[0]), new byte[] {0})));
    }

    @Test
    void bindWithATextParameterThatIsNotUtf8() throws IOException {
        assertRefused("22021", "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28",
                frame('B', concat(cstring(""), cstring("one"), int16(0), int16(1), int32(2), new byte[] {(byte) 0xc3, 0x28}, int16(0))));
    }

    @Test
    void bindWithATextParameterHoldingANul() throws IOException {
        assertRefused("22021", "invalid byte sequence for encoding \"UTF8\": 0x00",
                frame('B', concat(cstring(""), cstring("one"), int16(0), int16(1), int32(2), new byte[] {'1', 0}, int16(0))));
    }

    @Test
    void aMalformedBindInATransactionBlockFailsTheBlock() throws IOException {
        client.send('Q', cstring("BEGIN"));
        assertThat(client.untilReady()).last().satisfies(m -> assertThat(m.body()[0]).isEqualTo((byte) 'T'));
        client.send('B', concat(cstring(""), cstring("one"), int16(-1)));
        client.send('S', new byte[0]);
        List<Message> got = client.untilReady();
        assertThat(got).as(got.toString()).extracting(Message::type).containsExactly('E', 'Z');
        assertThat(got.get(0).sqlState()).isEqualTo("08P01");
        assertThat(got.get(1).body()[0]).isEqualTo((byte) 'E');
        client.send('Q', cstring("ROLLBACK"));
        assertThat(client.untilReady()).last().satisfies(m -> assertThat(m.body()[0]).isEqualTo((byte) 'I'));
        assertUsable();
    }

    // ------------------------------------------------------------------ Parse, Describe, Execute, Close

    @Test
    void parseWithAParameterTypeCountOfMinusOne() throws IOException {
        assertRefused("08P01", "insufficient data left in message", frame('P', concat(cstring("x"), cstring("SELECT 1"), int16(-1))));
    }

    @Test
    void parseWithFewerParameterTypesThanItsCount() throws IOException {
        assertRefused("08P01", "insufficient data left in message", frame('P', concat(cstring("x"), cstring("SELECT 1"), int16(3), int32(20))));
    }

    @Test
    void parseWithAnUnterminatedStatement() throws IOException {
        assertRefused("08P01", "invalid string in message", frame('P', concat(cstring("x"), "SELECT 1".getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void parseWithAStatementThatIsNotUtf8() throws IOException {
        assertRefused("22021", "invalid byte sequence for encoding \"UTF8\": 0xff",
                frame('P', concat(cstring("x"), new byte[] {'S', 'E', 'L', 'E', 'C', 'T', ' ', '\'', (byte) 0xff, '\'', 0}, int16(0))));
    }

    @Test
    void describeOfAnUnknownKind() throws IOException {
        assertRefused("08P01", "invalid DESCRIBE message subtype 88", frame('D', describe('X', "one")));
    }

    @Test
    void describeWithAnEmptyBody() throws IOException {
        assertRefused("08P01", "no data left in message", frame('D', new byte[0]));
    }

    @Test
    void executeWithoutItsRowLimit() throws IOException {
        assertRefused("08P01", "insufficient data left in message", frame('E', cstring("")));
    }

    @Test
    void executeWithBytesAfterTheLastField() throws IOException {
        assertRefused("08P01", "invalid message format", frame('E', concat(execute("", 0), new byte[] {1})));
    }

    @Test
    void closeOfAnUnknownKind() throws IOException {
        assertRefused("08P01", "invalid CLOSE message subtype 88", frame('C', describe('X', "one")));
    }

    // ------------------------------------------------------------------ Query

    @Test
    void aQueryThatIsNotUtf8() throws IOException {
        client.send('Q', new byte[] {'S', 'E', 'L', 'E', 'C', 'T', ' ', '\'', (byte) 0xed, (byte) 0xa0, (byte) 0x80, '\'', 0});
        List<Message> got = client.untilReady();
        assertThat(got).as(got.toString()).extracting(Message::type).containsExactly('E', 'Z');
        assertThat(got.get(0).sqlState()).isEqualTo("22021");
        assertThat(got.get(0).text()).isEqualTo("invalid byte sequence for encoding \"UTF8\": 0xed 0xa0 0x80");
        assertUsable();
    }

    @Test
    void anUnterminatedQuery() throws IOException {
        client.send('Q', "SELECT 1".getBytes(StandardCharsets.UTF_8));
        List<Message> got = client.untilReady();
        assertThat(got).as(got.toString()).extracting(Message::type).containsExactly('E', 'Z');
        assertThat(got.get(0).sqlState()).isEqualTo("08P01");
        assertThat(got.get(0).severity()).isEqualTo("ERROR");
        assertUsable();
    }

    // ------------------------------------------------------------------ start-up

    @Test
    void aStartupPacketOfTenThousandBytesIsAccepted() throws IOException {
        try (PgRawClient c = new PgRawClient(server.port(), 30_000)) {
            byte[] head = "user\0ada\0application_name\0".getBytes(StandardCharsets.UTF_8);
            byte[] body = new byte[PgDecoder.MAX_STARTUP_BYTES - 4];
            System.arraycopy(head, 0, body, 0, head.length);
            java.util.Arrays.fill(body, head.length, body.length - 2, (byte) 'x');
            c.writeRaw(PgRawClient.startupPacket(PgRawClient.PROTOCOL_3, body));
            assertThat(c.untilReady()).last().extracting(Message::type).isEqualTo('Z');
        }
    }

    @Test
    void aLongerStartupPacketIsRefusedFromItsLengthAndTheConnectionClosed() throws IOException {
        for (int code : new int[] {PgRawClient.PROTOCOL_3, PgDecoder.SSL_CODE, PgDecoder.GSS_CODE, PgDecoder.CANCEL_CODE}) {
            for (int length : new int[] {PgDecoder.MAX_STARTUP_BYTES + 5, PgWireServer.MAX_MESSAGE_BYTES, Integer.MAX_VALUE, 7, -1}) {
                try (PgRawClient c = new PgRawClient(server.port(), 30_000)) {
                    // only the header: the refusal comes before the body the length announces
                    c.writeRaw(ByteBuffer.allocate(8).putInt(length).putInt(code).array());
                    List<Message> got = c.untilClosed();
                    assertThat(got).as("code %d, length %d: %s", code, length, got).hasSize(1);
                    assertThat(got.get(0).severity()).isEqualTo("FATAL");
                    assertThat(got.get(0).sqlState()).isEqualTo("08P01");
                    assertThat(got.get(0).text()).isEqualTo("invalid length of startup packet");
                }
            }
        }
        assertUsable();
    }

    // ------------------------------------------------------------------ names in use, and how many

    @Test
    void aNameInUseIsRefusedAndASessionHoldsBoundedNamedStatementsAndPortals() throws IOException {
        assertRefused("42P05", "prepared statement \"one\" already exists", PgRawClient.frame('P', parse("one", "SELECT 1")));
        for (int i = 3; i < PgExtendedProtocol.MAX_NAMED; i++) {
            client.send('P', parse("s" + i, "SELECT 1"));
        }
        client.send('S', new byte[0]);
        List<Message> filled = client.untilReady();
        assertThat(filled).hasSize(PgExtendedProtocol.MAX_NAMED - 3 + 1).allMatch(m -> m.type() == '1' || m.type() == 'Z');
        assertRefused("54000", "a session may hold at most " + PgExtendedProtocol.MAX_NAMED + " named prepared statements; close (deallocate) some first",
                PgRawClient.frame('P', parse("extra", "SELECT 1")));
        // a closed statement frees its place
        client.send('C', PgRawClient.concat(new byte[] {'S'}, cstring("s3")));
        client.send('P', parse("extra", "SELECT 1"));
        client.send('S', new byte[0]);
        assertThat(client.untilReady()).extracting(Message::type).containsExactly('3', '1', 'Z');

        // portals: a name in use, and at most as many named portals (they live until Sync outside a block)
        client.send('B', bind("p", "one", new int[0], new String[] {"1"}, new int[0]));
        client.send('B', bind("p", "one", new int[0], new String[] {"1"}, new int[0]));
        client.send('S', new byte[0]);
        List<Message> twice = client.untilReady();
        assertThat(twice).extracting(Message::type).containsExactly('2', 'E', 'Z');
        assertThat(twice.get(1).sqlState()).isEqualTo("42P03");
        assertThat(twice.get(1).text()).isEqualTo("portal \"p\" already exists");
        for (int i = 0; i <= PgExtendedProtocol.MAX_NAMED; i++) {
            client.send('B', bind("p" + i, "one", new int[0], new String[] {"1"}, new int[0]));
        }
        client.send('S', new byte[0]);
        List<Message> bound = client.untilReady();
        assertThat(bound).hasSize(PgExtendedProtocol.MAX_NAMED + 2);
        assertThat(bound.subList(0, PgExtendedProtocol.MAX_NAMED)).allMatch(m -> m.type() == '2');
        assertThat(bound.get(PgExtendedProtocol.MAX_NAMED).sqlState()).isEqualTo("54000");
        assertThat(bound.get(PgExtendedProtocol.MAX_NAMED).text()).isEqualTo("a session may hold at most " + PgExtendedProtocol.MAX_NAMED
                + " named portals; close some first");
        assertUsable();
    }

    // ------------------------------------------------------------------

    /** Sends {@code frames}, an Execute (skipped after the error) and a Sync: one error with {@code state}, then ReadyForQuery. */
    private void assertRefused(String state, String text, byte[]... frames) throws IOException {
        for (byte[] f : frames) {
            client.writeRaw(f);
        }
        client.send('E', execute("", 0));
        client.send('S', new byte[0]);
        List<Message> got = client.untilReady();
        assertThat(got).as(got.toString()).extracting(Message::type).containsExactly('E', 'Z');
        assertThat(got.get(0).severity()).isEqualTo("ERROR");
        assertThat(got.get(0).sqlState()).isEqualTo(state);
        assertThat(got.get(0).text()).isEqualTo(text);
        assertThat(got.get(1).body()[0]).isEqualTo((byte) 'I');
        assertUsable();
    }

    /** The connection still answers: a simple {@code SELECT 1} and the prepared statements bound and executed. */
    private void assertUsable() throws IOException {
        client.send('Q', cstring("SELECT 1"));
        List<Message> got = client.untilReady();
        assertThat(got).as(got.toString()).extracting(Message::type).containsExactly('T', 'D', 'C', 'Z');
        client.send('B', bind("", "one", new int[0], new String[] {"2"}, new int[0]));
        client.send('E', execute("", 0));
        client.send('S', new byte[0]);
        got = client.untilReady();
        assertThat(got).as(got.toString()).extracting(Message::type).containsExactly('2', 'D', 'C', 'Z');
    }
}
