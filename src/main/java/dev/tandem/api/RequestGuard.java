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
import reactor.netty.NettyPipeline;

/**
 * Guards each HTTP/1.1 request on a connection. Once the first byte of a request arrives, its request
 * line and headers must be complete within {@code headTimeout}, or the connection is answered 408 and
 * closed (a client trickling its headers cannot hold it); once the head is in, the whole body must
 * arrive within {@code bodyTimeout}, or the connection is closed. A head the decoder refuses (too long
 * a URI, too large headers, malformed) is answered with a problem+json body (414, 431, 400) instead of
 * an empty one.
 *
 * <p>When the connection upgrades to a WebSocket the guard leaves the pipeline, and takes the server's
 * read and idle timeouts with it: they are about requests and keep-alive connections between requests,
 * and left on a WebSocket they closed every client that only listens (a change-stream subscriber, a
 * replica's controller between commands). A dead WebSocket peer is still found: streams write
 * progress, and a write to a closed connection fails.
 *
 * <p>Two handlers share one guard: {@link #bytes} before the HTTP codec sees raw bytes, {@link #heads}
 * after it sees decoded requests and outgoing responses.
 */
final class RequestGuard {

    static final String BYTES = "tandem.requestHeadBytes";
    static final String HEADS = "tandem.requestHeads";

    private final long headTimeoutNanos;
    private final long bodyTimeoutNanos;
    /** Whether the connection is between requests, waiting for a head. */
    private boolean awaitingHead = true;
    private ScheduledFuture<?> timer;
    private ScheduledFuture<?> bodyTimer;
    private ChannelHandlerContext headsContext;

    private RequestGuard(Duration headTimeout, Duration bodyTimeout) {
        this.headTimeoutNanos = headTimeout.toNanos();
        this.bodyTimeoutNanos = bodyTimeout.toNanos();
    }

    /** Installs a guard around the pipeline's HTTP codec named {@code codec}. */
    static void install(ChannelPipeline pipeline, String codec, Duration headTimeout, Duration bodyTimeout) {
        RequestGuard guard = new RequestGuard(headTimeout, bodyTimeout);
        pipeline.addBefore(codec, BYTES, guard.bytes);
        pipeline.addAfter(codec, HEADS, guard.heads);
    }

    private final ChannelInboundHandlerAdapter bytes = new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (awaitingHead && timer == null && msg instanceof ByteBuf b && b.isReadable()) {
                timer = ctx.executor().schedule(RequestGuard.this::timedOut, headTimeoutNanos, TimeUnit.NANOSECONDS);
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            cancel();
            cancelBody();
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
                if (!(msg instanceof LastHttpContent)) {
                    bodyTimer = ctx.executor().schedule(() -> bodyTimedOut(ctx), bodyTimeoutNanos, TimeUnit.NANOSECONDS);
                }
            } else if (msg instanceof LastHttpContent) {
                cancelBody();
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof HttpResponse r && r.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
                cancel();
                cancelBody();
                ChannelPipeline p = ctx.pipeline();
                for (String timeout : new String[] {NettyPipeline.ReadTimeoutHandler, NettyPipeline.IdleTimeoutHandler}) {
                    if (p.get(timeout) != null) {
                        p.remove(timeout);
                    }
                }
                p.remove(BYTES);
                p.remove(this);
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

    private void cancelBody() {
        if (bodyTimer != null) {
            bodyTimer.cancel(false);
            bodyTimer = null;
        }
    }

    private void bodyTimedOut(ChannelHandlerContext ctx) {
        bodyTimer = null;
        ctx.close();
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
