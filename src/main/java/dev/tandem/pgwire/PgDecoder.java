package dev.tandem.pgwire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Frames the frontend's byte stream into {@link PgMessage}s: untyped length-prefixed packets until
 * the start-up packet, then a type byte and a length per message. A message longer than the limit is
 * reported once as {@link PgMessage#TOO_LARGE} and the rest of the stream ignored (the session closes).
 */
final class PgDecoder extends ByteToMessageDecoder {

    static final int SSL_CODE = 80877103;
    static final int GSS_CODE = 80877104;
    static final int CANCEL_CODE = 80877102;

    private final int maxMessageBytes;
    private boolean started;
    private boolean broken;

    PgDecoder(int maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (!broken) {
            int at = in.readerIndex();
            int header = started ? 5 : 4;
            if (in.readableBytes() < header) {
                return;
            }
            char type = started ? (char) (in.getByte(at) & 0xff) : PgMessage.STARTUP;
            int len = in.getInt(started ? at + 1 : at);
            int min = started ? 4 : 8;
            if (len < min || len > maxMessageBytes) {
                broken = true;
                in.skipBytes(in.readableBytes());
                out.add(new PgMessage(PgMessage.TOO_LARGE, new byte[0]));
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
                if (code == SSL_CODE) {
                    type = PgMessage.SSL_REQUEST;
                } else if (code == GSS_CODE) {
                    type = PgMessage.GSS_REQUEST;
                } else {
                    started = true;
                }
            }
            out.add(new PgMessage(type, body));
        }
        in.skipBytes(in.readableBytes());
    }
}
