package dev.tandem.pgwire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import java.util.List;

/**
 * Frames the frontend's byte stream and decodes each frame into a {@link FrontendMessage}: untyped
 * length-prefixed packets until the start-up packet, then a type byte and a length per message. A message
 * longer than the limit is reported once as {@link FrontendMessage.TooLarge} and the rest of the stream
 * ignored (the session closes).
 * Before the start-up packet the limit is {@link #MAX_STARTUP_BYTES}, as in PostgreSQL: a start-up packet,
 * SSLRequest or GSSENCRequest declaring more is refused from its length alone, nothing of it buffered, as
 * {@link FrontendMessage.Invalid} "invalid length of startup packet".
 *
 * <p>With TLS configured, an SSLRequest is answered here: {@code S}, then a TLS handler is put in front
 * of this decoder and the stream continues encrypted. Bytes sent after the SSLRequest before the
 * handshake would be plaintext injected into the encrypted session, so they break the connection.
 */
final class PgDecoder extends ByteToMessageDecoder {

    static final int SSL_CODE = 80877103;
    static final int GSS_CODE = 80877104;
    static final int CANCEL_CODE = 80877102;
    /** The longest start-up packet accepted, not counting its length field: PostgreSQL's MAX_STARTUP_PACKET_LENGTH. */
    static final int MAX_STARTUP_BYTES = 10_000;

    /** The name of the TLS handler in the pipeline once a connection is encrypted. */
    static final String TLS_HANDLER = "pg-tls";

    private final int maxMessageBytes;
    private final SslContext tls;
    /** Reads the bodies of this connection's messages, one after the other (on its event loop). */
    private final PgReader reader = new PgReader(new byte[0]);
    private boolean started;
    private boolean broken;

    /** {@code tls}: the server's TLS context, or null when the server offers no TLS (an SSLRequest is then the session's to refuse). */
    PgDecoder(int maxMessageBytes, SslContext tls) {
        this.maxMessageBytes = maxMessageBytes;
        this.tls = tls;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (!broken) {
            int at = in.readerIndex();
            int header = started ? 5 : 4;
            if (in.readableBytes() < header) {
                return;
            }
            char type = started ? (char) (in.getByte(at) & 0xff) : FrontendMessage.STARTUP;
            int len = in.getInt(started ? at + 1 : at);
            if (!started && (len < 8 || len - 4 > MAX_STARTUP_BYTES)) {
                broken = true;
                in.skipBytes(in.readableBytes());
                out.add(new FrontendMessage.Invalid("invalid length of startup packet"));
                return;
            }
            if (started && type < ' ') {
                // no frontend message has a control character for its type; these are the pseudo-types of FrontendMessage
                broken = true;
                in.skipBytes(in.readableBytes());
                out.add(new FrontendMessage.Invalid("invalid frontend message type " + (int) type));
                return;
            }
            if (len < 4 || len > maxMessageBytes) {
                broken = true;
                in.skipBytes(in.readableBytes());
                out.add(FrontendMessage.TooLarge.INSTANCE);
                return;
            }
            if (in.readableBytes() < header + len - 4) {
                return;
            }
            in.skipBytes(header);
            byte[] body = new byte[len - 4];
            in.readBytes(body);
            if (!started) {
                int code = ((body[0] & 0xff) << 24) | ((body[1] & 0xff) << 16) | ((body[2] & 0xff) << 8) | (body[3] & 0xff);
                if (code == SSL_CODE && tls != null && ctx.pipeline().get(TLS_HANDLER) == null) {
                    if (in.isReadable()) {
                        broken = true;
                        in.skipBytes(in.readableBytes());
                        out.add(new FrontendMessage.Invalid("received unencrypted data after SSL request"));
                        return;
                    }
                    // 'S' is written (synchronously, on the event loop) before the TLS handler exists, so it goes out in the clear.
                    ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'S'}));
                    ctx.pipeline().addBefore(ctx.name(), TLS_HANDLER, tls.newHandler(ctx.alloc()));
                    return;
                }
                if (code == SSL_CODE) {
                    out.add(FrontendMessage.SslRequest.INSTANCE);
                    continue;
                }
                if (code == GSS_CODE) {
                    out.add(FrontendMessage.GssEncRequest.INSTANCE);
                    continue;
                }
                started = true;
            }
            out.add(FrontendMessage.decode(type, body, reader));
        }
        in.skipBytes(in.readableBytes());
    }
}
