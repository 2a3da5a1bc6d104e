package dev.tandem.api;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.http.HttpStatus;

/**
 * Guards the head of each HTTP/1.1 request on a connection: once the first byte of a request arrives,
 * its request line and headers must be complete within {@code headTimeout}, or the connection is
 * answered 408 and closed (a client trickling its headers cannot hold it); and a head the decoder
 * refuses (too long a URI, too large headers, malformed) is answered with a problem+json body (414,
 * 431, 400) instead of an empty one. Two handlers share one guard: {@link #bytes} before the HTTP codec
 * sees raw bytes, {@link #heads} after it sees decoded requests and outgoing responses; both leave the
 * pipeline when the connection upgrades to a WebSocket.
 */
final class RequestHeadGuard {

    static final String BYTES = "tandem.requestHeadBytes";
    static final String HEADS = "tandem.requestHeads";

    private final long headTimeoutNanos;
    /** Whether the connection is between requests, waiting for a head. */
    private boolean awaitingHead = true;
    private ScheduledFuture<?> timer;
    private ChannelHandlerContext headsContext;

    private RequestHeadGuard(Duration headTimeout) {
        this.headTimeoutNanos = headTimeout.toNanos();
    }

    /** Installs a guard around the pipeline's HTTP codec named {@code codec}. */
    static void install(ChannelPipeline pipeline, String codec, Duration headTimeout) {
        RequestHeadGuard guard = new RequestHeadGuard(headTimeout);
        pipeline.addBefore(codec, BYTES, guard.bytes);
        pipeline.addAfter(codec, HEADS, guard.heads);
    }

    private final ChannelInboundHandlerAdapter bytes = new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (awaitingHead && timer == null && msg instanceof ByteBuf b && b.isReadable()) {
                timer = ctx.executor().schedule(RequestHeadGuard.this::timedOut, headTimeoutNanos, TimeUnit.NANOSECONDS);
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            cancel();
            ctx.fireChannelInactive();
        }
    };

    private final ChannelDuplexHandler heads = new ChannelDuplexHandler() {
        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            headsContext = ctx;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest request) {
                awaitingHead = false;
                cancel();
                if (request.decoderResult().isFailure()) {
                    ReferenceCountUtil.release(msg);
                    refuse(ctx, request.decoderResult().cause());
                    return;
                }
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof HttpResponse r && r.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
                cancel();
                ctx.pipeline().remove(BYTES);
                ctx.pipeline().remove(this);
            } else if (msg instanceof LastHttpContent) {
                awaitingHead = true;
            }
            ctx.write(msg, promise);
        }
    };

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void timedOut() {
        timer = null;
        if (awaitingHead && headsContext != null && headsContext.channel().isActive()) {
            answerAndClose(headsContext, HttpStatus.REQUEST_TIMEOUT, "request-timeout",
                    "the request line and headers did not arrive within " + TimeUnit.NANOSECONDS.toMillis(headTimeoutNanos)
                            + " ms (tandem.http.request-head-timeout)");
        }
    }

    private static void refuse(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            answerAndClose(ctx, HttpStatus.URI_TOO_LONG, "uri-too-long", "the request line (method, URI and version) is too long");
        } else if (cause instanceof TooLongHttpHeaderException || cause instanceof TooLongFrameException) {
            answerAndClose(ctx, HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "headers-too-large", "the request headers are too large");
        } else {
            answerAndClose(ctx, HttpStatus.BAD_REQUEST, "bad-request", "the request is not valid HTTP/1.1: "
                    + (cause == null ? "undecodable" : cause.getMessage()));
        }
    }

    private static void answerAndClose(ChannelHandlerContext ctx, HttpStatus status, String slug, String detail) {
        byte[] body = Problem.of(status, slug, detail).json(null).toString().getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status.value()),
                Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/problem+json");
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
