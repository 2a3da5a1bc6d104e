package dev.tandem.pgwire;

/**
 * One frontend message: its type byte and body. The start-up packets, which have no type byte, are
 * {@link #STARTUP} (a start-up or cancel request, told apart by the code at the start of the body),
 * {@link #SSL_REQUEST} and {@link #GSS_REQUEST}; a message over the size limit is {@link #TOO_LARGE}; a
 * stream that breaks the protocol otherwise is {@link #INVALID} (its body the reason, in UTF-8).
 */
record PgMessage(char type, byte[] body) {

    static final char STARTUP = '\0';
    static final char SSL_REQUEST = '\u0001';
    static final char GSS_REQUEST = '\u0002';
    static final char TOO_LARGE = '\u0003';
    static final char INVALID = '\u0004';
}
