package dev.tandem.api;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the HTTP and WebSocket API.
 *
 * @param maxBodyBytes the largest request body (or WebSocket message) accepted; a larger body gets 413,
 *     a larger WebSocket message an error reply with status 413 (the connection stays open)
 * @param allowedOrigins browser origins (Spring origin patterns) allowed to open WebSockets besides the
 *     server's own origin; a handshake without {@code Origin} (a non-browser client) is always allowed
 */
@ConfigurationProperties("tandem.api")
public record ApiProperties(@DefaultValue("1MB") DataSize maxBodyBytes,
        @DefaultValue({"http://localhost:[*]", "http://127.0.0.1:[*]", "http://[::1]:[*]"}) List<String> allowedOrigins) {

    /** WebSocket frames larger than this close the connection (1009) instead of getting an error reply. */
    public static final int MAX_SOCKET_FRAME_BYTES = 64 << 20;
}
