package dev.tandem.protocol;

import dev.tandem.expr.DataError;
import dev.tandem.expr.EvalError;
import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/** A response from a compute replica to the controller. */
public sealed interface ComputeResponse {

    /** The write and input frontiers of collection {@code id}; they never regress. */
    record Frontiers(String id, Frontier writeFrontier, Frontier inputFrontier) implements ComputeResponse {
        public Frontiers {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(writeFrontier, "writeFrontier");
            Objects.requireNonNull(inputFrontier, "inputFrontier");
        }
    }

    /** The one answer to peek {@code uuid}. */
    record PeekResponse(UUID uuid, PeekResult result) implements ComputeResponse {
        public PeekResponse {
            Objects.requireNonNull(uuid, "uuid");
            Objects.requireNonNull(result, "result");
        }
    }

    /** Advisory status, e.g. a dataflow hydrated; {@code kind} says which, {@code id} and {@code detail} what of. */
    record Status(StatusKind kind, String id, String detail) implements ComputeResponse {
        public Status {
            Objects.requireNonNull(kind, "kind");
        }
    }

    /** What a {@link Status} reports; its JSON name is the lower-case constant name. */
    enum StatusKind {
        /** Dataflow {@code id} hydrated; {@code detail} is the milliseconds it took after it was scheduled. */
        HYDRATED,
        /** The replica refused to build dataflow {@code id} (invalid, or an export that exists); {@code detail} says why. */
        DATAFLOW_REJECTED,
        /** Dataflow {@code id} failed while it ran; {@code detail} says why. */
        DATAFLOW_FAILED,
        /** Dataflow {@code id} stopped: it went over its memory budget; {@code detail} says by how much. */
        DATAFLOW_OVER_BUDGET,
        /** A second peek with uuid {@code id} came while the first was pending, and was ignored. */
        DUPLICATE_PEEK,
        /** The replica refused the connection: it serves one controller at a time. */
        REFUSED,
        /** A command frame could not be decoded; {@code detail} says why. */
        PROTOCOL_ERROR;

        private final String jsonName = name().toLowerCase(java.util.Locale.ROOT);

        public String jsonName() {
            return jsonName;
        }
    }

    /** The outcome of a peek. */
    sealed interface PeekResult {
    }

    /**
     * Rows of a successful peek (each row repeated by its multiplicity, finished), with what a reader
     * needs to judge freshness: the read time, the index's {@code upper} and {@code since} when read,
     * whether it was hydrated, and which runtime answered.
     */
    record Rows(List<Row> rows, ReadInfo info) implements PeekResult {
        public Rows {
            rows = List.copyOf(rows);
            Objects.requireNonNull(info, "info");
        }
    }

    /** Freshness of a peek's answer. */
    record ReadInfo(long timestamp, Frontier upper, Frontier since, boolean hydrated, String runtime) {
        public ReadInfo {
            Objects.requireNonNull(upper, "upper");
            Objects.requireNonNull(since, "since");
        }
    }

    /**
     * The peek failed with {@code message}; {@code kind} says why, so a controller need not parse the message.
     * A {@link ErrorKind#FAILED failed} peek, and only that, has the {@code code} of its data error, which
     * chooses the SQLSTATE a client is answered.
     */
    record Error(ErrorKind kind, String message, EvalError.Code code) implements PeekResult {
        public Error {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(message, "message");
            if ((kind == ErrorKind.FAILED) != (code != null)) {
                throw new IllegalArgumentException("a peek error has a code if and only if it is of kind failed: " + kind + ", " + code);
            }
        }

        /** An error of a kind other than {@link ErrorKind#FAILED}. */
        public Error(ErrorKind kind, String message) {
            this(kind, message, null);
        }

        /** An error of kind {@link ErrorKind#FAILED}: the peek met a data error of {@code code}. */
        public static Error failed(EvalError.Code code, String message) {
            return new Error(ErrorKind.FAILED, message, code);
        }

        /** An error of kind {@link ErrorKind#FAILED}: the peek met {@code error}. */
        public static Error failed(DataError error) {
            return failed(error.code(), error.message());
        }
    }

    /** Why a peek failed; its JSON name is the lower-case constant name. */
    enum ErrorKind {
        /** The read time is before the collection's compaction frontier. */
        BEFORE_SINCE,
        /** The result exceeds the maximum result size. */
        TOO_LARGE,
        /** The peek itself is malformed (e.g. an MFP that does not fit the collection). */
        INVALID,
        /** No such collection on the replica. */
        UNKNOWN_COLLECTION,
        /** The collection's inputs failed, were dropped, or evaluation failed. */
        FAILED;

        public String jsonName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** The peek was canceled before it was answered. */
    record Canceled() implements PeekResult {
    }
}
