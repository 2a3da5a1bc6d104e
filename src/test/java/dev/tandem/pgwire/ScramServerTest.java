package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.security.ScramVerifier;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * The server side of SCRAM-SHA-256 replays RFC 7677's published exchange byte for byte (its nonce
 * supplied), and refuses every message that leaves the RFC's grammar or arrives out of turn.
 */
class ScramServerTest {

    /** RFC 7677, section 3, verbatim. */
    static final String CLIENT_FIRST = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    static final String SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    static final String SERVER_FIRST = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    static final String CLIENT_FINAL = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    static final String SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

    static final ScramVerifier PENCIL = ScramVerifier.derive("pencil", Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);

    private static ScramServer rfc() {
        return new ScramServer(PENCIL, () -> SERVER_NONCE);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theRfc7677ExchangeRunsAsPublished() {
        ScramServer s = rfc();
        assertThat(new String(s.first(b(CLIENT_FIRST)), StandardCharsets.UTF_8)).isEqualTo(SERVER_FIRST);
        assertThat(new String(s.last(b(CLIENT_FINAL)), StandardCharsets.UTF_8)).isEqualTo(SERVER_FINAL);
    }

    @Test
    void aWrongPasswordIsAFailedProofNotAViolation() {
        ScramServer s = new ScramServer(ScramVerifier.derive("pencil!", Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096),
                () -> SERVER_NONCE);
        s.first(b(CLIENT_FIRST));
        assertThat(s.last(b(CLIENT_FINAL))).isNull();
    }

    @Test
    void theServerNonceIsFreshAndFollowsTheClients() {
        ScramServer a = new ScramServer(PENCIL);
        ScramServer b = new ScramServer(PENCIL);
        String fa = new String(a.first(b(CLIENT_FIRST)), StandardCharsets.UTF_8);
        String fb = new String(b.first(b(CLIENT_FIRST)), StandardCharsets.UTF_8);
        assertThat(fa).startsWith("r=rOprNGfwEbeRWgbNEkqO").endsWith(",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
        assertThat(fa.length()).isGreaterThan("r=rOprNGfwEbeRWgbNEkqO,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096".length() + 20);
        assertThat(fa).isNotEqualTo(fb);
        // The RFC's final message carries the RFC's nonce, not this exchange's.
        assertThatThrownBy(() -> a.last(b(CLIENT_FINAL))).isInstanceOf(ScramServer.Violation.class).hasMessageContaining("nonce");
    }

    @Test
    void aClientThatSupportsChannelBindingButWasNotOfferedItIsAccepted() {
        // y,, : the gs2 header is repeated base64 in c= ("eSws"); the proof then differs from the RFC's, so it fails as a proof.
        ScramServer s = rfc();
        s.first(b("y,,n=user,r=rOprNGfwEbeRWgbNEkqO"));
        assertThat(s.last(b(CLIENT_FINAL.replace("c=biws", "c=eSws")))).isNull();
        // ...and c= must repeat the header that was sent.
        ScramServer t = rfc();
        t.first(b("y,,n=user,r=rOprNGfwEbeRWgbNEkqO"));
        assertThatThrownBy(() -> t.last(b(CLIENT_FINAL))).isInstanceOf(ScramServer.Violation.class).hasMessageContaining("channel binding");
    }

    @Test
    void malformedClientFirstMessagesAreViolations() {
        String[][] cases = {
                {"p=tls-server-end-point,,n=user,r=abc", "channel binding"},
                {"n,a=admin,n=user,r=abc", "authorization identities"},
                {"n,,m=ext,n=user,r=abc", "unsupported SCRAM extension"},
                {"x,,n=user,r=abc", "channel-binding flag"},
                {"n,,n=user", "expected n=<user name>,r=<nonce>"},
                {"n,,r=abc,n=user", "expected n=<user name>,r=<nonce>"},
                {"n,,n=user,r=", "nonce is empty"},
                {"n,,n=user,r=a\u00e9b", "printable ASCII"},
                {"n,,n=user,r=abc,???", "not an attribute"},
                {"n", "no gs2 header"},
                {"n,", "second comma"},
                {"", "no gs2 header"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> rfc().first(b(c[0]))).as(c[0]).isInstanceOf(ScramServer.Violation.class).hasMessageContaining(c[1]);
        }
        assertThatThrownBy(() -> rfc().first(new byte[] {'n', ',', ',', (byte) 0xff})).hasMessageContaining("not UTF-8");
        assertThatThrownBy(() -> rfc().first(b("n,,n=user,r=ab\0c"))).hasMessageContaining("NUL");
    }

    @Test
    void malformedOrOutOfTurnClientFinalMessagesAreViolations() {
        String nonce = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
        String[][] cases = {
                {"c=biws," + nonce, "no proof"},
                {"c=biws," + nonce + ",p=not*base64", "proof is not base64"},
                {"c=biws," + nonce + ",p=AAAA", "not 32"},
                {"c=biws," + nonce + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ", "proof is not canonical base64"},
                {"c=biws," + nonce + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVR=", "proof is not canonical base64"},
                {"c=biw," + nonce + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "channel binding is not canonical base64"},
                {"c=b!ws," + nonce + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "channel binding is not base64"},
                {"c=cCws," + nonce + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "channel binding check failed"},
                {"c=biws,r=rOprNGfwEbeRWgbNEkqO,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "nonce mismatch"},
                {nonce + ",c=biws,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "expected attribute c="},
                {"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "no proof"},
        };
        for (String[] c : cases) {
            ScramServer s = rfc();
            s.first(b(CLIENT_FIRST));
            assertThatThrownBy(() -> s.last(b(c[0]))).as(c[0]).isInstanceOf(ScramServer.Violation.class).hasMessageContaining(c[1]);
        }
        assertThatThrownBy(() -> rfc().last(b(CLIENT_FINAL))).as("final before first").hasMessageContaining("no client-first message yet");
        ScramServer s = rfc();
        s.first(b(CLIENT_FIRST));
        assertThatThrownBy(() -> s.first(b(CLIENT_FIRST))).as("first twice").hasMessageContaining("the exchange has begun");
        assertThat(s.last(b(CLIENT_FINAL))).isNotNull();
        assertThatThrownBy(() -> s.last(b(CLIENT_FINAL))).as("the final message replayed").hasMessageContaining("the exchange is over");
    }
}
