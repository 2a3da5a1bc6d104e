package dev.tandem.source.postgres;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The messages of PostgreSQL's {@code pgoutput} logical decoding plugin (protocol version 1), as
 * {@code PGReplicationStream} hands them over: one message per buffer, decoded here into records.
 * Tuple values come in their text form; a column whose TOASTed value did not change is
 * {@link #UNCHANGED}.
 */
final class PgOutput {

    /** The value of a TOASTed column an UPDATE did not change (pgoutput does not send it). */
    static final Object UNCHANGED = new Object() {
        @Override
        public String toString() {
            return "(unchanged TOAST value)";
        }
    };

    sealed interface Message {
    }

    /** A transaction begins; it commits at {@code finalLsn}. */
    record Begin(long finalLsn, long commitMicros, int xid) implements Message {
    }

    /** A transaction commits: {@code commitLsn} is its commit record, {@code endLsn} the end of it (the position to confirm). */
    record Commit(long commitLsn, long endLsn, long commitMicros) implements Message {
    }

    /** A table's shape, sent before its first change in a session and after it changes. */
    record Relation(int oid, String schema, String name, char replicaIdentity, List<RelColumn> columns) implements Message {
    }

    record RelColumn(boolean key, String name, int typeOid, int typmod) {
    }

    /** Values: a String (text form), null (SQL NULL) or {@link #UNCHANGED}. */
    record Insert(int oid, Object[] row) implements Message {
    }

    /** {@code old} is null when the upstream sent no old row (the key did not change under REPLICA IDENTITY DEFAULT). */
    record Update(int oid, Object[] old, boolean oldIsKeyOnly, Object[] row) implements Message {
    }

    record Delete(int oid, Object[] old, boolean oldIsKeyOnly) implements Message {
    }

    record Truncate(List<Integer> oids) implements Message {
    }

    /** A message of no interest here (origin, type, logical message). */
    record Other(char kind) implements Message {
    }

    private PgOutput() {
    }

    static Message decode(ByteBuffer in) {
        char kind = (char) in.get();
        return switch (kind) {
            case 'B' -> new Begin(in.getLong(), in.getLong(), in.getInt());
            case 'C' -> {
                in.get(); // flags
                yield new Commit(in.getLong(), in.getLong(), in.getLong());
            }
            case 'R' -> {
                int oid = in.getInt();
                String schema = string(in);
                String name = string(in);
                char identity = (char) in.get();
                int n = in.getShort();
                List<RelColumn> cols = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    boolean key = (in.get() & 1) != 0;
                    cols.add(new RelColumn(key, string(in), in.getInt(), in.getInt()));
                }
                yield new Relation(oid, schema, name, identity, cols);
            }
            case 'I' -> {
                int oid = in.getInt();
                expect(in, 'N');
                yield new Insert(oid, tuple(in));
            }
            case 'U' -> {
                int oid = in.getInt();
                char next = (char) in.get();
                Object[] old = null;
                boolean keyOnly = false;
                if (next == 'K' || next == 'O') {
                    keyOnly = next == 'K';
                    old = tuple(in);
                    next = (char) in.get();
                }
                if (next != 'N') {
                    throw new IllegalStateException("pgoutput: expected a new tuple in an UPDATE, got '" + next + "'");
                }
                yield new Update(oid, old, keyOnly, tuple(in));
            }
            case 'D' -> {
                int oid = in.getInt();
                char next = (char) in.get();
                if (next != 'K' && next != 'O') {
                    throw new IllegalStateException("pgoutput: expected an old tuple in a DELETE, got '" + next + "'");
                }
                yield new Delete(oid, tuple(in), next == 'K');
            }
            case 'T' -> {
                int n = in.getInt();
                in.get(); // options (CASCADE, RESTART IDENTITY)
                List<Integer> oids = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    oids.add(in.getInt());
                }
                yield new Truncate(oids);
            }
            default -> new Other(kind);
        };
    }

    private static void expect(ByteBuffer in, char c) {
        char got = (char) in.get();
        if (got != c) {
            throw new IllegalStateException("pgoutput: expected '" + c + "', got '" + got + "'");
        }
    }

    private static Object[] tuple(ByteBuffer in) {
        int n = in.getShort();
        Object[] out = new Object[n];
        for (int i = 0; i < n; i++) {
            char kind = (char) in.get();
            out[i] = switch (kind) {
                case 'n' -> null;
                case 'u' -> UNCHANGED;
                case 't' -> {
                    int len = in.getInt();
                    String s = new String(in.array(), in.arrayOffset() + in.position(), len, StandardCharsets.UTF_8);
                    in.position(in.position() + len);
                    yield s;
                }
                default -> throw new IllegalStateException("pgoutput: unknown tuple value kind '" + kind + "'");
            };
        }
        return out;
    }

    private static String string(ByteBuffer in) {
        int start = in.position();
        while (in.get() != 0) {
            // up to the terminating NUL
        }
        return new String(in.array(), in.arrayOffset() + start, in.position() - start - 1, StandardCharsets.UTF_8);
    }
}
