package dev.tandem.pgwire;

import static dev.tandem.pgwire.PgRawClient.bind;
import static dev.tandem.pgwire.PgRawClient.concat;
import static dev.tandem.pgwire.PgRawClient.cstring;
import static dev.tandem.pgwire.PgRawClient.int16;
import static dev.tandem.pgwire.PgRawClient.int32;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The decoding of frontend message bodies into typed messages, malformed ones included. */
class FrontendMessageTest {

    private final PgReader reader = new PgReader(new byte[0]);

    private FrontendMessage decode(char type, byte[] body) {
        return FrontendMessage.decode(type, body, reader);
    }

    @Test
    void decodesEachMessageItsFields() {
        assertThat(decode('Q', cstring("SELECT 1"))).isEqualTo(new FrontendMessage.Query("SELECT 1"));
        FrontendMessage.Parse parse = (FrontendMessage.Parse) decode('P', concat(cstring("s"), cstring("SELECT $1"), int16(1), int32(20)));
        assertThat(parse.name()).isEqualTo("s");
        assertThat(parse.text()).isEqualTo("SELECT $1");
        assertThat(parse.parameterOids()).containsExactly(20);
        assertThat(decode('D', concat(new byte[] {'S'}, cstring("s")))).isEqualTo(new FrontendMessage.Describe('S', "s"));
        assertThat(decode('E', concat(cstring("p"), int32(10)))).isEqualTo(new FrontendMessage.Execute("p", 10));
        assertThat(decode('C', concat(new byte[] {'P'}, cstring("p")))).isEqualTo(new FrontendMessage.Close('P', "p"));
        assertThat(decode('S', new byte[] {1, 2})).isSameAs(FrontendMessage.Sync.INSTANCE);
        assertThat(decode('H', new byte[0])).isSameAs(FrontendMessage.Flush.INSTANCE);
        assertThat(decode('X', new byte[0])).isSameAs(FrontendMessage.Terminate.INSTANCE);
        assertThat(decode('c', new byte[0])).isSameAs(FrontendMessage.CopyDone.INSTANCE);
        assertThat(decode('f', cstring("why"))).isEqualTo(new FrontendMessage.CopyFail("why", null));
        assertThat(decode('z', new byte[0])).isEqualTo(new FrontendMessage.Unknown('z'));
        assertThat(decode(FrontendMessage.STARTUP, concat(int32(PgDecoder.CANCEL_CODE), int32(1001), int32(42))))
                .isEqualTo(new FrontendMessage.CancelRequest(1001, 42));
        FrontendMessage.StartupMessage startup = (FrontendMessage.StartupMessage) decode(FrontendMessage.STARTUP,
                concat(int32(PgRawClient.PROTOCOL_3), cstring("user"), cstring("u"), cstring("database"), cstring("d"), new byte[] {0}));
        assertThat(startup.parameters()).containsExactly(java.util.Map.entry("user", "u"), java.util.Map.entry("database", "d"));
        assertThat(((FrontendMessage.StartupMessage) decode(FrontendMessage.STARTUP, concat(int32(0x00020000), new byte[] {1, 2, 3})))
                .parameters()).isEmpty();
    }

    @Test
    void aBindHoldsItsValuesAndFormats() {
        FrontendMessage.Bind b = (FrontendMessage.Bind) decode('B', bind("p", "s", new int[] {0}, new String[] {"1", null}, new int[] {1}));
        assertThat(b.portal()).isEqualTo("p");
        assertThat(b.statement()).isEqualTo("s");
        assertThat(b.parameterFormats()).containsExactly((short) 0);
        assertThat(b.parameterCount()).isEqualTo(2);
        assertThat(b.valuesRead()).isEqualTo(2);
        assertThat(b.values()[0]).isEqualTo("1".getBytes(StandardCharsets.UTF_8));
        assertThat(b.values()[1]).isNull();
        assertThat(b.resultFormats()).containsExactly((short) 1);
        assertThat(b.malformed()).isNull();
    }

    @Test
    void aTruncatedBindKeepsWhatItReadAndTheError() {
        FrontendMessage.Bind b = (FrontendMessage.Bind) decode('B', concat(cstring(""), cstring("s"), int16(0), int16(60000), int32(1), new byte[] {'1'}));
        assertThat(b.parameterCount()).isEqualTo(60000);
        assertThat(b.valuesRead()).isEqualTo(1);
        assertThat(b.values().length).isLessThan(4);
        assertThat(b.resultFormats()).isNull();
        assertThat(b.malformed()).hasMessage("insufficient data left in message");
        b = (FrontendMessage.Bind) decode('B', concat(cstring(""), cstring("s"), int16(2)));
        assertThat(b.parameterFormats()).isNull();
        b = (FrontendMessage.Bind) decode('B', concat(cstring(""), cstring("s"), int16(0), int16(0), int16(0), new byte[] {9}));
        assertThat(b.resultFormats()).isEmpty();
        assertThat(b.malformed()).hasMessage("invalid message format");
    }

    @Test
    void aBodyWithoutItsFieldsIsMalformedWithTheErrorToAnswer() {
        FrontendMessage m = decode('E', cstring(""));
        assertThat(m).isInstanceOf(FrontendMessage.Malformed.class);
        assertThat(m.type()).isEqualTo('E');
        assertThat(((FrontendMessage.Malformed) m).error()).isInstanceOf(PgReader.Malformed.class).hasMessage("insufficient data left in message");
        m = decode('Q', new byte[] {(byte) 0xff, 0});
        assertThat(((FrontendMessage.Malformed) m).error()).isInstanceOf(SqlException.class);
        assertThat(((FrontendMessage.CopyFail) decode('f', new byte[] {'x'})).malformed()).hasMessage("invalid string in message");
        assertThat(decode(FrontendMessage.STARTUP, int32(PgDecoder.CANCEL_CODE))).isInstanceOf(FrontendMessage.Malformed.class);
    }
}
