package dev.tandem.pgwire;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PushbackInputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A wire-protocol client that writes raw frames, malformed ones included, and reads the backend's messages. */
final class PgRawClient implements AutoCloseable {

    /** One backend message: its type, body, and for an error its severity and SQLSTATE. */
    record Message(char type, byte[] body) {
        String sqlState() {
            return type == 'E' ? field('C') : null;
        }

        String severity() {
            return type == 'E' ? field('S') : null;
        }

        String text() {
            return type == 'E' ? field('M') : null;
        }

        /** The ErrorResponse field {@code code}, or null. */
        String field(char code) {
            int p = 0;
            while (p < body.length && body[p] != 0) {
                int end = p + 1;
                while (end < body.length && body[end] != 0) {
                    end++;
                }
                if (body[p] == code) {
                    return new String(body, p + 1, end - p - 1, StandardCharsets.UTF_8);
                }
                p = end + 1;
            }
            return null;
        }

        @Override
        public String toString() {
            return type == 'E' ? "E(" + severity() + " " + sqlState() + " " + text() + ")" : String.valueOf(type);
        }
    }

    /** The protocol 3.0 start-up code. */
    static final int PROTOCOL_3 = 196608;

    private final Socket socket;
    private final DataOutputStream out;
    private final PushbackInputStream raw;
    private final DataInputStream in;

    /** Connects to {@code port} on loopback; every read waits at most {@code timeoutMillis}. */
    PgRawClient(int port, int timeoutMillis) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(timeoutMillis);
        socket.setTcpNoDelay(true);
        out = new DataOutputStream(socket.getOutputStream());
        raw = new PushbackInputStream(socket.getInputStream(), 1);
        in = new DataInputStream(raw);
    }

    /** A start-up packet for {@code user} and its answer, up to ReadyForQuery or the end of the connection. */
    List<Message> startup(String user) throws IOException {
        writeRaw(startupPacket(PROTOCOL_3, ("user\0" + user + "\0database\0tandem\0\0").getBytes(StandardCharsets.UTF_8)));
        return untilReady();
    }

    static byte[] startupPacket(int code, byte[] body) {
        return ByteBuffer.allocate(8 + body.length).putInt(8 + body.length).putInt(code).put(body).array();
    }

    /** A typed frame: its type, its length and its body. */
    static byte[] frame(char type, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) type).putInt(4 + body.length).put(body).array();
    }

    void send(char type, byte[] body) throws IOException {
        writeRaw(frame(type, body));
    }

    void writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Ends the client's side of the stream (the server sees the end of its input). */
    void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    /** The next backend message, or null at the end of the connection. */
    Message next() throws IOException {
        int type;
        try {
            type = in.read();
        } catch (SocketException reset) {
            return null;
        }
        if (type < 0) {
            return null;
        }
        int len = in.readInt();
        if (len < 4) {
            throw new IOException("a backend message of length " + len);
        }
        byte[] body = new byte[len - 4];
        in.readFully(body);
        return new Message((char) type, body);
    }

    /** The messages up to and including the next ReadyForQuery, or up to the end of the connection. */
    List<Message> untilReady() throws IOException {
        List<Message> got = new ArrayList<>();
        for (Message m = next(); m != null; m = next()) {
            got.add(m);
            if (m.type() == 'Z') {
                break;
            }
        }
        return got;
    }

    /** Every message until the server closes the connection. */
    List<Message> untilClosed() throws IOException {
        List<Message> got = new ArrayList<>();
        try {
            for (Message m = next(); m != null; m = next()) {
                got.add(m);
            }
        } catch (EOFException truncated) {
            got.add(new Message('?', new byte[0]));
        }
        return got;
    }

    /** Reads the one byte {@code N} declining an SSLRequest or GSSENCRequest if it comes next; true if it did. */
    boolean declined() throws IOException {
        int b;
        try {
            b = raw.read();
        } catch (SocketException reset) {
            return false;
        }
        if (b == 'N') {
            return true;
        }
        if (b >= 0) {
            raw.unread(b);
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    // ------------------------------------------------------------------ message bodies

    static byte[] cstring(String s) {
        return (s + "\0").getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    static byte[] int16(int... values) {
        ByteBuffer b = ByteBuffer.allocate(2 * values.length);
        for (int v : values) {
            b.putShort((short) v);
        }
        return b.array();
    }

    static byte[] int32(int... values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length);
        for (int v : values) {
            b.putInt(v);
        }
        return b.array();
    }

    /** A Parse body: statement name, text, parameter type OIDs. */
    static byte[] parse(String name, String text, int... oids) {
        return concat(cstring(name), cstring(text), int16(oids.length), int32(oids));
    }

    /** A Bind body of text parameters (null: SQL NULL) under the given format codes. */
    static byte[] bind(String portal, String statement, int[] formats, String[] params, int[] resultFormats) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(cstring(portal));
        b.writeBytes(cstring(statement));
        b.writeBytes(int16(formats.length));
        b.writeBytes(int16(formats));
        b.writeBytes(int16(params.length));
        for (String p : params) {
            if (p == null) {
                b.writeBytes(int32(-1));
            } else {
                byte[] v = p.getBytes(StandardCharsets.UTF_8);
                b.writeBytes(int32(v.length));
                b.writeBytes(v);
            }
        }
        b.writeBytes(int16(resultFormats.length));
        b.writeBytes(int16(resultFormats));
        return b.toByteArray();
    }

    static byte[] execute(String portal, int maxRows) {
        return concat(cstring(portal), int32(maxRows));
    }

    static byte[] describe(char kind, String name) {
        return concat(new byte[] {(byte) kind}, cstring(name));
    }
}
