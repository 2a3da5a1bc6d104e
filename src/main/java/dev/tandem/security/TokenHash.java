package dev.tandem.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Salted hashes of API token secrets, as configured: {@code sha256:<salt>:<digest>} (both base64url,
 * the digest is SHA-256 over salt and secret). Secrets made by {@link #newSecret} carry 256 random bits,
 * so a fast hash is enough to keep them from being recovered; {@link #hash} refuses short secrets.
 */
public final class TokenHash {

    /** The shortest secret accepted. */
    public static final int MIN_SECRET_LENGTH = 16;

    private static final String SCHEME = "sha256";
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();

    private TokenHash() {
    }

    /** A fresh random secret: 32 bytes, base64url, prefixed {@code tdm_} so that it is recognizable in a leak scan. */
    public static String newSecret(SecureRandom random) {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return "tdm_" + B64.encodeToString(b);
    }

    /** The configured form of {@code secret} with a fresh 16-byte salt. */
    public static String hash(String secret, SecureRandom random) {
        if (secret.length() < MIN_SECRET_LENGTH) {
            throw new IllegalArgumentException("a token secret needs at least " + MIN_SECRET_LENGTH
                    + " characters; use 'token new' for a random one");
        }
        byte[] salt = new byte[16];
        random.nextBytes(salt);
        return SCHEME + ":" + B64.encodeToString(salt) + ":" + B64.encodeToString(digest(salt, secret));
    }

    /** Checks that {@code hash} has the configured form; returns it, or throws naming what is wrong. */
    public static String validate(String hash) {
        String[] parts = hash == null ? new String[0] : hash.split(":", -1);
        if (parts.length != 3 || !parts[0].equals(SCHEME)) {
            throw new IllegalArgumentException("a token hash has the form sha256:<salt>:<digest> (from 'token hash' or 'token new')");
        }
        try {
            if (B64D.decode(parts[2]).length != 32 || B64D.decode(parts[1]).length == 0) {
                throw new IllegalArgumentException("a token hash's digest is 32 bytes and its salt is not empty");
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a token hash's salt and digest are base64url: " + e.getMessage());
        }
        return hash;
    }

    /** Whether {@code secret} hashes to {@code hash} (a validated hash), compared in constant time. */
    public static boolean matches(String hash, String secret) {
        String[] parts = hash.split(":", -1);
        return MessageDigest.isEqual(B64D.decode(parts[2]), digest(B64D.decode(parts[1]), secret));
    }

    private static byte[] digest(byte[] salt, String secret) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(salt);
            return d.digest(secret.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
