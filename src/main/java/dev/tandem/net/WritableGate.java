package dev.tandem.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelId;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Tells a connection's streams when its socket can take more: {@link #whenWritable} completes once
 * the event loop has written what was handed to it before and the channel's outbound buffer is under
 * its high-water mark (or the channel is closed), else once it has drained below the low-water mark. A stream that asks before each batch holds at most one batch
 * beyond what the socket buffers, however long its client stops reading; what it has not asked for waits
 * in the change stream's own bounded buffer.
 */
public final class WritableGate extends ChannelInboundHandlerAdapter {

    /** The gate's name in a channel's pipeline. */
    public static final String NAME = "tandem-writable";

    /** The gates of open channels, by channel id (for surfaces that know their connection only by its id). */
    private static final Map<ChannelId, WritableGate> OPEN = new ConcurrentHashMap<>();

    private final Queue<Sinks.Empty<Void>> waiting = new ConcurrentLinkedQueue<>();
    private volatile Channel channel;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    /** The gate of {@code channel}, added to its pipeline (after its codecs) if it has none yet. */
    public static WritableGate of(Channel channel) {
        synchronized (channel) {
            if (channel.pipeline().get(NAME) instanceof WritableGate g) {
                return g;
            }
            WritableGate g = new WritableGate();
            // known at once: handlerAdded may run later, on the event loop, and until then a gate without its
            // channel would let a stream write as though the socket could always take more
            g.channel = channel;
            channel.pipeline().addFirst(NAME, g);
            if (channel.isActive() || channel.isOpen()) {
                OPEN.put(channel.id(), g);
                channel.closeFuture().addListener(f -> OPEN.remove(channel.id(), g));
            }
            return g;
        }
    }

    /** The gate of the open channel {@code id}, or null when it has none (or is closed). */
    public static WritableGate find(ChannelId id) {
        return OPEN.get(id);
    }

    /**
     * Completes when the connection can take more. It looks on the channel's event loop, after the tasks
     * queued there before: what a stream handed to the transport reaches the channel's outbound buffer
     * (and counts against its high-water mark) only when the event loop writes it, so a look from the
     * stream's own thread would see a writable channel while a busy or stalled event loop still holds every
     * message handed to it, and let the whole stream past its bound.
     */
    public Mono<Void> whenWritable() {
        return Mono.defer(() -> {
            Channel c = channel;
            if (c == null || !c.isActive()) {
                return Mono.empty();
            }
            Sinks.Empty<Void> s = Sinks.empty();
            try {
                c.eventLoop().execute(() -> {
                    if (open()) {
                        s.tryEmitEmpty();
                    } else {
                        waiting.add(s); // released when the channel drains (or closes): on this loop, so no wake-up is lost
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                s.tryEmitEmpty(); // the event loop is shutting down: nothing more will be written
            }
            return s.asMono();
        });
    }

    private boolean open() {
        Channel c = channel;
        return c.isWritable() || !c.isActive();
    }

    private void release() {
        Sinks.Empty<Void> s;
        while ((s = waiting.poll()) != null) {
            s.tryEmitEmpty();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            release();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release();
        ctx.fireChannelInactive();
    }
}
