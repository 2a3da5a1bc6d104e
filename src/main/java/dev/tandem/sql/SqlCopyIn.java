package dev.tandem.sql;

import reactor.core.publisher.Mono;

/**
 * A {@code COPY t [(columns)] FROM STDIN} in progress: the data the client sends in pieces (CopyData),
 * then its end (CopyDone), which writes every row as one durable write and answers {@code COPY n}. Data
 * past the size limit is refused with {@code 54000}; nothing is written unless {@link #done} succeeds.
 */
public interface SqlCopyIn {

    /** How many columns each row has (for CopyInResponse). */
    int columns();

    /** Takes the next piece of data; throws a {@link SqlException} ({@code 54000}) past the limit. */
    void data(byte[] chunk);

    /** Parses and writes the rows sent (inside a transaction block, adds them to the block's writes). */
    Mono<SqlResult> done();
}
