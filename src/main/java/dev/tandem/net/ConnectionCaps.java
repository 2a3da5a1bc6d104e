package dev.tandem.net;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * Caps the HTTP (and WebSocket) connections open at once: {@code maxTotal} in all and {@code maxPerAddress}
 * from one client address, so that no client can take every file descriptor of the process. A connection
 * over a cap is answered {@code 503} with a problem (plain HTTP; a TLS connection is only closed, as it has
 * not shaken hands yet) and closed before any of it is read; the caps count connections, not requests, so a
 * client keeping its connections alive is not refused.
 */
@ChannelHandler.Sharable
public final class ConnectionCaps extends ChannelInboundHandlerAdapter {

    /** The caps' name in a channel's pipeline. */
    public static final String NAME = "tandem-connection-caps";

    private static final AttributeKey<InetAddress> COUNTED = AttributeKey.valueOf("tandem-connection-caps-counted");

    private final int maxTotal;
    private final int maxPerAddress;
    private final BiConsumer<String, String> refused;
    private final AtomicInteger total = new AtomicInteger();
    /** Connections open by address; an address with none has no entry. */
    private final ConcurrentHashMap<InetAddress, Integer> byAddress = new ConcurrentHashMap<>();

    /**
     * Caps of {@code maxTotal} connections and {@code maxPerAddress} from one address; {@code refused}
     * hears of each refusal (the address and which cap: {@code total} or {@code address}).
     */
    public ConnectionCaps(int maxTotal, int maxPerAddress, BiConsumer<String, String> refused) {
        if (maxTotal < 1 || maxPerAddress < 1) {
            throw new IllegalArgumentException("tandem.http: max-connections and max-connections-per-address must be at least 1, got "
                    + maxTotal + " and " + maxPerAddress);
        }
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
        this.refused = refused;
    }

    /**
     * The default total cap: half the file descriptors the process may open (the rest stay for the data
     * directory, the wire protocol and the JVM), or 10,000 when the limit is unknown.
     */
    public static int defaultMaxTotal() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            long fds = unix.getMaxFileDescriptorCount();
            return (int) Math.max(64, Math.min(Integer.MAX_VALUE, fds / 2));
        }
        return 10_000;
    }

    /** Installs these caps first in a new connection's pipeline. */
    public void install(Channel channel) {
        if (channel.pipeline().get(NAME) == null) {
            channel.pipeline().addFirst(NAME, this);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        InetAddress address = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        String cap = admit(address);
        if (cap != null) {
            refuse(ctx, address, cap);
            return;
        }
        ctx.channel().attr(COUNTED).set(address);
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        InetAddress counted = ctx.channel().attr(COUNTED).getAndSet(null);
        if (counted != null) {
            release(counted);
        }
        super.channelInactive(ctx);
    }

    /** Counts a new connection from {@code address}, or says which cap it is over (and counts nothing). */
    private String admit(InetAddress address) {
        if (total.incrementAndGet() > maxTotal) {
            total.decrementAndGet();
            return "total";
        }
        if (address == null) {
            total.decrementAndGet();
            return null;
        }
        boolean[] over = {false};
        byAddress.compute(address, (a, n) -> {
            int open = n == null ? 0 : n;
            if (open >= maxPerAddress) {
                over[0] = true;
                return n;
            }
            return open + 1;
        });
        if (over[0]) {
            total.decrementAndGet();
            return "address";
        }
        return null;
    }

    private void release(InetAddress address) {
        byAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
        total.decrementAndGet();
    }

    private void refuse(ChannelHandlerContext ctx, InetAddress address, String cap) {
        String who = address == null ? "unknown" : address.getHostAddress();
        refused.accept(who, cap);
        if (ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class) != null) {
            ctx.close();
            return;
        }
        String detail = cap.equals("total")
                ? "the server has " + maxTotal + " connections open, its limit (tandem.http.max-connections); retry shortly"
                : who + " has " + maxPerAddress + " connections open, its limit (tandem.http.max-connections-per-address); close some first";
        String body = "{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,\"detail\":\"" + detail + "\"}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nContent-Length: " + bytes.length
                + "\r\nRetry-After: 1\r\nConnection: close\r\n\r\n";
        ctx.writeAndFlush(Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), bytes)).addListener(ChannelFutureListener.CLOSE);
    }

    /** Connections counted now (tests, introspection). */
    public int open() {
        return total.get();
    }

    /** Connections counted now from {@code address}. */
    public int open(InetAddress address) {
        Integer n = byAddress.get(address);
        return n == null ? 0 : n;
    }
}
