package dev.tandem.pgwire;

import dev.tandem.security.ScramVerifier;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.function.Supplier;

/**
 * The server's side of one SCRAM-SHA-256 exchange (RFC 5802, RFC 7677) without channel binding, as the
 * wire protocol carries it: the client-first message (in SASLInitialResponse) is answered by
 * {@link #first} with the server-first message, the client-final message (in SASLResponse) by
 * {@link #last} with the server-final message when the client's proof holds.
 *
 * <p>Channel binding is not offered (no {@code SCRAM-SHA-256-PLUS}), so the client's gs2 header is
 * {@code n,,} (it does not support channel binding) or {@code y,,} (it does, but believes the server
 * does not, which is true here); {@code p=}, an authorization identity and mandatory extensions are
 * refused. Any message that does not follow the RFC's grammar, or arrives out of turn, is a
 * {@link Violation}: the session ends with a protocol error and never authenticates.
 */
final class ScramServer {

    static final String MECHANISM = "SCRAM-SHA-256";

    /** A malformed or out-of-turn SCRAM message; its message says what was wrong. */
    static final class Violation extends RuntimeException {
        Violation(String message) {
            super(message, null, false, false);
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Server nonce bytes: 18, as PostgreSQL (24 base64 characters). */
    private static final int NONCE_BYTES = 18;

    private final ScramVerifier verifier;
    private final Supplier<String> serverNonce;
    private String gs2Header;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;
    private boolean finished;

    /** An exchange checked against {@code verifier} (a real token's, or a mock one for a user that does not exist). */
    ScramServer(ScramVerifier verifier) {
        this(verifier, ScramServer::freshNonce);
    }

    /** An exchange whose server nonce comes from {@code serverNonce} (a test replays RFC 7677's exchange with its nonce). */
    ScramServer(ScramVerifier verifier, Supplier<String> serverNonce) {
        this.verifier = verifier;
        this.serverNonce = serverNonce;
    }

    /** A server nonce: {@link #NONCE_BYTES} from SecureRandom, base64 (printable, no comma). */
    private static String freshNonce() {
        byte[] n = new byte[NONCE_BYTES];
        RANDOM.nextBytes(n);
        return Base64.getEncoder().encodeToString(n);
    }

    ScramVerifier verifier() {
        return verifier;
    }

    /** Whether the client-first message has been read. */
    boolean started() {
        return serverFirst != null;
    }

    /** Reads the client-first message and returns the server-first message (a fresh nonce, the salt and the iterations). */
    byte[] first(byte[] message) {
        if (started()) {
            throw new Violation("unexpected SCRAM client-first message: the exchange has begun");
        }
        String text = text(message);
        // gs2-header: cbind-flag "," [authzid] ","
        int comma = text.indexOf(',');
        if (comma < 0) {
            throw new Violation("malformed SCRAM message: no gs2 header");
        }
        String flag = text.substring(0, comma);
        if (flag.startsWith("p=")) {
            throw new Violation("SCRAM channel binding (" + flag + ") is not supported: this server offers only " + MECHANISM
                    + " without channel binding");
        }
        if (!flag.equals("n") && !flag.equals("y")) {
            throw new Violation("malformed SCRAM message: unexpected channel-binding flag \"" + flag + "\" (expected n or y)");
        }
        int second = text.indexOf(',', comma + 1);
        if (second < 0) {
            throw new Violation("malformed SCRAM message: the gs2 header ends without its second comma");
        }
        if (second != comma + 1) {
            throw new Violation("SCRAM authorization identities (a=) are not supported");
        }
        gs2Header = text.substring(0, second + 1);
        String bare = text.substring(second + 1);
        String[] attrs = bare.split(",", -1);
        if (attrs[0].startsWith("m=")) {
            throw new Violation("the client requires an unsupported SCRAM extension (m=)");
        }
        if (attrs.length < 2 || !attrs[0].startsWith("n=")) {
            throw new Violation("malformed SCRAM message: expected n=<user name>,r=<nonce>");
        }
        // The user name here is ignored, as PostgreSQL does: the start-up packet's user logs in.
        String clientNonce = value(attrs[1], 'r');
        checkNonce(clientNonce);
        for (int i = 2; i < attrs.length; i++) {
            extension(attrs[i]);
        }
        nonce = clientNonce + serverNonce.get();
        clientFirstBare = bare;
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(verifier.salt()) + ",i=" + verifier.iterations();
        return serverFirst.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Reads the client-final message: the server-final message when the client's proof holds for the
     * verifier, else null (a wrong password).
     */
    byte[] last(byte[] message) {
        if (!started() || finished) {
            throw new Violation("unexpected SCRAM client-final message: " + (finished ? "the exchange is over" : "no client-first message yet"));
        }
        finished = true;
        String text = text(message);
        int at = text.lastIndexOf(",p=");
        if (at < 0) {
            throw new Violation("malformed SCRAM message: the client-final message has no proof (p=) at its end");
        }
        String withoutProof = text.substring(0, at);
        String[] attrs = withoutProof.split(",", -1);
        if (attrs.length < 2) {
            throw new Violation("malformed SCRAM message: expected c=<channel binding>,r=<nonce>,...,p=<proof>");
        }
        byte[] binding = base64(value(attrs[0], 'c'), "channel binding");
        if (!new String(binding, StandardCharsets.ISO_8859_1).equals(gs2Header)) {
            throw new Violation("SCRAM channel binding check failed: c= does not repeat the client-first message's gs2 header");
        }
        if (!value(attrs[1], 'r').equals(nonce)) {
            throw new Violation("SCRAM nonce mismatch: the client-final message's nonce is not this exchange's");
        }
        for (int i = 2; i < attrs.length; i++) {
            extension(attrs[i]);
        }
        byte[] proof = base64(text.substring(at + 3), "proof");
        if (proof.length != 32) {
            throw new Violation("malformed SCRAM message: the proof is " + proof.length + " bytes, not 32");
        }
        byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
        if (!verifier.verifiesProof(authMessage, proof)) {
            return null;
        }
        return ("v=" + Base64.getEncoder().encodeToString(verifier.serverSignature(authMessage))).getBytes(StandardCharsets.US_ASCII);
    }

    /** The message as UTF-8 text (the RFC's messages are UTF-8, attribute values may not hold NUL). */
    private static String text(byte[] message) {
        try {
            String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(message)).toString();
            if (s.indexOf('\0') >= 0) {
                throw new Violation("malformed SCRAM message: it contains a NUL byte");
            }
            return s;
        } catch (CharacterCodingException e) {
            throw new Violation("malformed SCRAM message: it is not UTF-8");
        }
    }

    /** The value of attribute {@code name} in {@code attr} ({@code name=value}). */
    private static String value(String attr, char name) {
        if (attr.length() < 2 || attr.charAt(0) != name || attr.charAt(1) != '=') {
            throw new Violation("malformed SCRAM message: expected attribute " + name + "= where \"" + abbreviate(attr) + "\" is");
        }
        return attr.substring(2);
    }

    /** An optional extension: a letter, '=' and a value; mandatory ones are refused at the start. */
    private static void extension(String attr) {
        if (attr.length() < 2 || !Character.isLetter(attr.charAt(0)) || attr.charAt(1) != '=') {
            throw new Violation("malformed SCRAM message: \"" + abbreviate(attr) + "\" is not an attribute");
        }
    }

    /** A client nonce: printable ASCII but ',' (RFC 5802), not empty. */
    private static void checkNonce(String nonce) {
        if (nonce.isEmpty()) {
            throw new Violation("malformed SCRAM message: the client nonce is empty");
        }
        for (int i = 0; i < nonce.length(); i++) {
            char c = nonce.charAt(i);
            if (c < 0x21 || c > 0x7e || c == ',') {
                throw new Violation("malformed SCRAM message: the client nonce holds a character that is not printable ASCII");
            }
        }
    }

    /**
     * Strict base64: padded, and with no stray bits in the last character (the JDK's decoder accepts
     * either, so one proof would have several spellings).
     */
    private static byte[] base64(String s, String what) {
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            throw new Violation("malformed SCRAM message: the " + what + " is not base64");
        }
        if (!Base64.getEncoder().encodeToString(bytes).equals(s)) {
            throw new Violation("malformed SCRAM message: the " + what + " is not canonical base64");
        }
        return bytes;
    }

    private static String abbreviate(String s) {
        return s.length() <= 20 ? s : s.substring(0, 20) + "...";
    }
}
