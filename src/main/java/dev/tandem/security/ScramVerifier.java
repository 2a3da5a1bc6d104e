package dev.tandem.security;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What a server keeps to check a SCRAM-SHA-256 login (RFC 5802, RFC 7677) without knowing the secret,
 * in PostgreSQL's own format (as in {@code pg_authid}):
 * {@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>}, standard base64. A verifier is
 * derived from the secret by PBKDF2 ({@code Hi} of the RFC): the token's fast {@code sha256:} hash cannot
 * serve, so a token that logs in over SCRAM carries both.
 *
 * <p>The secret is used as its UTF-8 bytes without SASLprep normalization (the RFC's SASLprep leaves
 * printable ASCII unchanged, and every secret {@code token new} makes is printable ASCII).
 */
public record ScramVerifier(int iterations, byte[] salt, byte[] storedKey, byte[] serverKey) {

    /** The iterations {@link #create} uses: PostgreSQL's default ({@code scram_iterations}). */
    public static final int DEFAULT_ITERATIONS = 4096;

    private static final String PREFIX = "SCRAM-SHA-256$";
    /** Above this a login would cost the server (and a client) seconds; PostgreSQL caps its setting likewise. */
    private static final int MAX_ITERATIONS = 1 << 20;
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder B64D = Base64.getDecoder();

    /** A verifier for {@code secret} with a fresh 16-byte salt and {@link #DEFAULT_ITERATIONS}. */
    public static ScramVerifier create(String secret, SecureRandom random) {
        byte[] salt = new byte[16];
        random.nextBytes(salt);
        return derive(secret, salt, DEFAULT_ITERATIONS);
    }

    /** The verifier of {@code secret} under {@code salt} and {@code iterations}. */
    public static ScramVerifier derive(String secret, byte[] salt, int iterations) {
        byte[] salted = hi(secret.getBytes(StandardCharsets.UTF_8), salt, iterations);
        byte[] clientKey = hmac(salted, "Client Key".getBytes(StandardCharsets.US_ASCII));
        byte[] serverKey = hmac(salted, "Server Key".getBytes(StandardCharsets.US_ASCII));
        return new ScramVerifier(iterations, salt.clone(), sha256(clientKey), serverKey);
    }

    /**
     * The verifier in its configured form, or an {@link IllegalArgumentException} naming what is wrong
     * with it.
     */
    public static ScramVerifier parse(String text) {
        String form = "a SCRAM verifier has the form SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey> (from 'token new' or 'token hash')";
        if (text == null || !text.startsWith(PREFIX)) {
            throw new IllegalArgumentException(form);
        }
        String[] halves = text.substring(PREFIX.length()).split("\\$", -1);
        String[] first = halves[0].split(":", -1);
        String[] second = halves.length == 2 ? halves[1].split(":", -1) : new String[0];
        if (halves.length != 2 || first.length != 2 || second.length != 2) {
            throw new IllegalArgumentException(form);
        }
        int iterations;
        try {
            iterations = Integer.parseInt(first[0]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(form + "; the iterations are a number");
        }
        if (iterations < 1 || iterations > MAX_ITERATIONS) {
            throw new IllegalArgumentException("a SCRAM verifier's iterations are between 1 and " + MAX_ITERATIONS + ", not " + iterations);
        }
        byte[] salt;
        byte[] stored;
        byte[] server;
        try {
            salt = B64D.decode(first[1]);
            stored = B64D.decode(second[0]);
            server = B64D.decode(second[1]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a SCRAM verifier's salt and keys are base64: " + e.getMessage());
        }
        if (salt.length == 0 || stored.length != 32 || server.length != 32) {
            throw new IllegalArgumentException("a SCRAM verifier's salt is not empty and its StoredKey and ServerKey are 32 bytes each");
        }
        return new ScramVerifier(iterations, salt, stored, server);
    }

    /** The configured form, which {@link #parse} reads back. */
    public String encode() {
        return PREFIX + iterations + ":" + B64.encodeToString(salt) + "$" + B64.encodeToString(storedKey) + ":" + B64.encodeToString(serverKey);
    }

    /**
     * Whether {@code proof} proves knowledge of the client key behind this verifier for
     * {@code authMessage}: {@code H(proof XOR HMAC(StoredKey, authMessage)) == StoredKey}, compared in
     * constant time.
     */
    public boolean verifiesProof(byte[] authMessage, byte[] proof) {
        byte[] signature = hmac(storedKey, authMessage);
        if (proof.length != signature.length) {
            return false;
        }
        byte[] clientKey = new byte[signature.length];
        for (int i = 0; i < clientKey.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ signature[i]);
        }
        return MessageDigest.isEqual(sha256(clientKey), storedKey);
    }

    /** The server's signature of {@code authMessage}, which proves to the client that the server holds this verifier. */
    public byte[] serverSignature(byte[] authMessage) {
        return hmac(serverKey, authMessage);
    }

    /** HMAC-SHA-256 of {@code data} under {@code key}. */
    public static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code Hi} of RFC 5802: PBKDF2 with HMAC-SHA-256, one block. */
    private static byte[] hi(byte[] secret, byte[] salt, int iterations) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            // An empty key is not a valid SecretKeySpec; HMAC pads keys with zeros, so one zero byte is the same key.
            mac.init(new SecretKeySpec(secret.length == 0 ? new byte[1] : secret, "HmacSHA256"));
            mac.update(salt);
            byte[] u = mac.doFinal(new byte[] {0, 0, 0, 1});
            byte[] out = u.clone();
            for (int i = 1; i < iterations; i++) {
                u = mac.doFinal(u);
                for (int j = 0; j < out.length; j++) {
                    out[j] ^= u[j];
                }
            }
            return out;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Two verifiers are equal when their salt, iterations and keys are (a record of arrays would compare identities). */
    @Override
    public boolean equals(Object o) {
        return o instanceof ScramVerifier v && iterations == v.iterations && Arrays.equals(salt, v.salt)
                && MessageDigest.isEqual(storedKey, v.storedKey) && MessageDigest.isEqual(serverKey, v.serverKey);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(storedKey);
    }

    @Override
    public String toString() {
        return encode();
    }
}
