package dev.tandem.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * SCRAM-SHA-256 verifiers against RFC 7677's published exchange (user "user", password "pencil") and
 * against a derivation written here with the JDK's own PBKDF2; their configured form; the token
 * command printing them.
 */
class ScramVerifierTest {

    /** RFC 7677, section 3: the exchange's messages, verbatim. */
    static final String CLIENT_FIRST_BARE = "n=user,r=rOprNGfwEbeRWgbNEkqO";
    static final String SERVER_FIRST = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    static final String CLIENT_FINAL_WITHOUT_PROOF = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    static final String PROOF = "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    static final String SERVER_SIGNATURE = "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";
    static final byte[] SALT = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");

    final SecureRandom random = new SecureRandom();

    @Test
    void theRfc7677ExchangeVerifiesAndTheServerSignatureIsTheRfcs() {
        ScramVerifier v = ScramVerifier.derive("pencil", SALT, 4096);
        byte[] authMessage = (CLIENT_FIRST_BARE + "," + SERVER_FIRST + "," + CLIENT_FINAL_WITHOUT_PROOF).getBytes(StandardCharsets.US_ASCII);
        assertThat(v.verifiesProof(authMessage, Base64.getDecoder().decode(PROOF))).isTrue();
        assertThat(Base64.getEncoder().encodeToString(v.serverSignature(authMessage))).isEqualTo(SERVER_SIGNATURE);

        assertThat(ScramVerifier.derive("pencil!", SALT, 4096).verifiesProof(authMessage, Base64.getDecoder().decode(PROOF)))
                .as("another password").isFalse();
        byte[] flipped = Base64.getDecoder().decode(PROOF);
        flipped[31] ^= 1;
        assertThat(v.verifiesProof(authMessage, flipped)).as("a proof with one bit changed").isFalse();
        assertThat(v.verifiesProof(authMessage, new byte[31])).as("a short proof").isFalse();
        assertThat(v.verifiesProof((CLIENT_FIRST_BARE + "x").getBytes(StandardCharsets.US_ASCII), Base64.getDecoder().decode(PROOF)))
                .as("the proof of another exchange").isFalse();
    }

    @Test
    void theKeysAreThoseOfTheJdksPbkdf2() throws Exception {
        SecretKeyFactory f = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
        byte[] salted = f.generateSecret(new PBEKeySpec("pencil".toCharArray(), SALT, 4096, 256)).getEncoded();
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(salted, "HmacSHA256"));
        byte[] clientKey = mac.doFinal("Client Key".getBytes(StandardCharsets.US_ASCII));
        byte[] serverKey = mac.doFinal("Server Key".getBytes(StandardCharsets.US_ASCII));
        byte[] storedKey = MessageDigest.getInstance("SHA-256").digest(clientKey);

        ScramVerifier v = ScramVerifier.derive("pencil", SALT, 4096);
        assertThat(v.storedKey()).isEqualTo(storedKey);
        assertThat(v.serverKey()).isEqualTo(serverKey);
        assertThat(v.encode()).isEqualTo("SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$" + Base64.getEncoder().encodeToString(storedKey) + ":"
                + Base64.getEncoder().encodeToString(serverKey));
    }

    @Test
    void theConfiguredFormReadsBackAndABadOneIsRefusedNamingTheToken() {
        ScramVerifier v = ScramVerifier.create(TokenHash.newSecret(random), random);
        assertThat(v.iterations()).isEqualTo(4096);
        assertThat(v.salt()).hasSize(16);
        assertThat(ScramVerifier.parse(v.encode())).isEqualTo(v);
        assertThat(ScramVerifier.create("the same secret 0123", random)).as("a fresh salt").isNotEqualTo(ScramVerifier.create("the same secret 0123", random));

        String keys = "$" + Base64.getEncoder().encodeToString(new byte[32]) + ":" + Base64.getEncoder().encodeToString(new byte[32]);
        assertThatThrownBy(() -> ScramVerifier.parse("md5abcdef")).hasMessageContaining("SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>");
        assertThatThrownBy(() -> ScramVerifier.parse("SCRAM-SHA-256$4096:c2FsdA==")).hasMessageContaining("has the form");
        assertThatThrownBy(() -> ScramVerifier.parse("SCRAM-SHA-256$many:c2FsdA==" + keys)).hasMessageContaining("iterations are a number");
        assertThatThrownBy(() -> ScramVerifier.parse("SCRAM-SHA-256$0:c2FsdA==" + keys)).hasMessageContaining("between 1 and");
        assertThatThrownBy(() -> ScramVerifier.parse("SCRAM-SHA-256$4096:not*base64" + keys)).hasMessageContaining("base64");
        assertThatThrownBy(() -> ScramVerifier.parse("SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA")).hasMessageContaining("32 bytes");

        String hash = TokenHash.hash("a secret of some length", random);
        assertThat(ApiToken.parse(0, "ada", hash, "reader", null, v.encode()).scram()).isEqualTo(v);
        assertThat(ApiToken.parse(0, "ada", hash, "reader", null, " ").scram()).as("blank: none").isNull();
        assertThatThrownBy(() -> ApiToken.parse(2, "ada", hash, "reader", null, "SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA"))
                .hasMessageContaining("tandem.security.tokens[2].scram (token 'ada')").hasMessageContaining("32 bytes");
    }

    @Test
    void theDirectoryHandsOutVerifiersAndLogsInOnlyWithTheCurrentOne() {
        String secret = TokenHash.newSecret(random);
        ScramVerifier v = ScramVerifier.create(secret, random);
        ApiToken ada = ApiToken.parse(0, "ada", TokenHash.hash(secret, random), "writer", null, v.encode());
        ApiToken bob = ApiToken.parse(1, "bob", TokenHash.hash(secret, random), "reader", null, null);
        TokenDirectory d = new TokenDirectory(List.of(bob));
        assertThat(d.anyScram()).isFalse();
        d.replace(List.of(ada, bob));
        assertThat(d.anyScram()).isTrue();
        assertThat(d.scramVerifier("ada")).contains(v);
        assertThat(d.scramVerifier("bob")).isEmpty();
        assertThat(d.scramVerifier("eve")).isEmpty();
        assertThat(d.scramPrincipal("ada", v).orElseThrow().name()).isEqualTo("ada");
        assertThat(d.scramPrincipal("bob", v)).isEmpty();

        ScramVerifier rekeyed = ScramVerifier.create(secret, random);
        d.replace(List.of(ApiToken.parse(0, "ada", TokenHash.hash(secret, random), "writer", null, rekeyed.encode())));
        assertThat(d.scramPrincipal("ada", v)).as("a verifier replaced during the exchange").isEmpty();
        assertThat(d.scramPrincipal("ada", rekeyed)).isPresent();
    }

    @Test
    void theTokenCommandPrintsAVerifierOfTheSecret() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String secret = "correct horse battery staple";
        int status = TokenCommand.run(new String[] {"hash"}, new ByteArrayInputStream((secret + "\n").getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), random);
        assertThat(status).isZero();
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(TokenHash.matches(TokenHash.validate(lines.get(0)), secret)).isTrue();
        ScramVerifier printed = ScramVerifier.parse(lines.get(1));
        assertThat(printed.iterations()).isEqualTo(4096);
        assertThat(printed.salt()).hasSize(16);
        assertThat(ScramVerifier.derive(secret, printed.salt(), 4096)).isEqualTo(printed);

        out.reset();
        status = TokenCommand.run(new String[] {"new", "--name", "ada", "--roles", "reader", "--index", "3"}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), random);
        assertThat(status).isZero();
        lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        String fresh = lines.get(1);
        String scram = lines.stream().filter(l -> l.startsWith("tandem.security.tokens[3].scram=")).findFirst().orElseThrow().split("=", 2)[1];
        ScramVerifier v = ScramVerifier.parse(scram);
        assertThat(ScramVerifier.derive(fresh, v.salt(), v.iterations())).isEqualTo(v);
    }
}
