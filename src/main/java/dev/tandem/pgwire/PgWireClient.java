package dev.tandem.pgwire;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A minimal blocking client of the PostgreSQL wire protocol (v3) for a server that trusts it: the
 * simple protocol, and the extended protocol with text parameters, as {@code pgbench} sends them
 * ({@code -M simple}, {@code -M extended}, {@code -M prepared}). Answers are read up to their
 * ReadyForQuery and counted, not decoded; an ErrorResponse fails the call. Not thread-safe: one
 * connection, one caller.
 */
public final class PgWireClient implements AutoCloseable {

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final ByteArrayOutputStream message = new ByteArrayOutputStream();

    private PgWireClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /** Connects to {@code host:port} as {@code user} (no password) and waits until the server is ready. */
    public static PgWireClient connect(String host, int port, String user, int timeoutMillis) throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.setSoTimeout(timeoutMillis);
        s.connect(new InetSocketAddress(host, port), timeoutMillis);
        PgWireClient c = new PgWireClient(s);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream b = new DataOutputStream(body);
        b.writeInt(196608);
        for (String p : new String[] {"user", user, "database", "tandem"}) {
            b.write(p.getBytes(StandardCharsets.UTF_8));
            b.write(0);
        }
        b.write(0);
        c.out.writeInt(body.size() + 4);
        body.writeTo(c.out);
        c.out.flush();
        c.untilReady();
        return c;
    }

    /** Runs {@code sql} with the simple protocol; returns the DataRows answered. */
    public int simpleQuery(String sql) throws IOException {
        begin('Q').cstring(sql).end();
        out.flush();
        return untilReady();
    }

    /** Parses {@code sql} as the named statement {@code name} (a Parse and a Sync). */
    public void prepare(String name, String sql) throws IOException {
        begin('P').cstring(name).cstring(sql).int16(0).end();
        begin('S').end();
        out.flush();
        untilReady();
    }

    /**
     * Sends Bind messages as libpq does ({@code true}: one result-format code, and a Describe of the portal
     * before each Execute of a named statement) or with no result-format codes and no Describe ({@code false}),
     * so that the warm-up's reads take both branches real clients take.
     */
    public PgWireClient libpqStyle(boolean libpq) {
        this.libpq = libpq;
        return this;
    }

    private boolean libpq;

    /** Runs the named statement with text parameters (Bind, [Describe,] Execute, Sync); returns the DataRows answered. */
    public int executePrepared(String name, String... params) throws IOException {
        bind(name, params);
        if (libpq) {
            begin('D').int8('P').cstring("").end();
        }
        begin('E').cstring("").int32(0).end();
        begin('S').end();
        out.flush();
        return untilReady();
    }

    /** Parses, binds, describes and runs {@code sql} as the unnamed statement, then Sync; returns the DataRows answered. */
    public int extendedQuery(String sql, String... params) throws IOException {
        begin('P').cstring("").cstring(sql).int16(0).end();
        bind("", params);
        begin('D').int8('P').cstring("").end();
        begin('E').cstring("").int32(0).end();
        begin('S').end();
        out.flush();
        return untilReady();
    }

    private void bind(String statement, String[] params) throws IOException {
        begin('B').cstring("").cstring(statement).int16(0).int16(params.length);
        for (String p : params) {
            byte[] v = p.getBytes(StandardCharsets.UTF_8);
            int32(v.length);
            message.write(v);
        }
        if (libpq) {
            int16(1).int16(0).end();
        } else {
            int16(0).end();
        }
    }

    /** Reads messages up to ReadyForQuery: the DataRows among them, or the first ErrorResponse's message as an exception. */
    private int untilReady() throws IOException {
        int rows = 0;
        String error = null;
        while (true) {
            char type = (char) in.readUnsignedByte();
            int length = in.readInt();
            byte[] body = in.readNBytes(length - 4);
            switch (type) {
                case 'D' -> rows++;
                case 'E' -> error = errorMessage(body);
                case 'R' -> {
                    if (body.length < 4 || body[0] != 0 || body[1] != 0 || body[2] != 0 || body[3] != 0) {
                        throw new IOException("the server asks for a password");
                    }
                }
                case 'Z' -> {
                    if (error != null) {
                        throw new IOException(error);
                    }
                    return rows;
                }
                default -> {
                }
            }
        }
    }

    private static String errorMessage(byte[] body) {
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (i < body.length && body[i] != 0) {
            char field = (char) body[i++];
            int end = i;
            while (end < body.length && body[end] != 0) {
                end++;
            }
            if (field == 'C' || field == 'M') {
                b.append(b.isEmpty() ? "" : " ").append(new String(body, i, end - i, StandardCharsets.UTF_8));
            }
            i = end + 1;
        }
        return b.toString();
    }

    private PgWireClient begin(char type) {
        message.reset();
        message.write(type);
        message.write(0);
        message.write(0);
        message.write(0);
        message.write(0);
        return this;
    }

    private PgWireClient cstring(String s) throws IOException {
        message.write(s.getBytes(StandardCharsets.UTF_8));
        message.write(0);
        return this;
    }

    private PgWireClient int8(int v) {
        message.write(v);
        return this;
    }

    private PgWireClient int16(int v) {
        message.write(v >>> 8);
        message.write(v);
        return this;
    }

    private PgWireClient int32(int v) {
        message.write(v >>> 24);
        message.write(v >>> 16);
        message.write(v >>> 8);
        message.write(v);
        return this;
    }

    private void end() throws IOException {
        byte[] m = message.toByteArray();
        int length = m.length - 1;
        m[1] = (byte) (length >>> 24);
        m[2] = (byte) (length >>> 16);
        m[3] = (byte) (length >>> 8);
        m[4] = (byte) length;
        out.write(m);
    }

    @Override
    public void close() throws IOException {
        try {
            begin('X').end();
            out.flush();
        } finally {
            socket.close();
        }
    }
}
