package dev.tandem.api;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the HTTP and WebSocket API.
 *
 * @param maxBodyBytes the largest request body (or WebSocket message) accepted; larger ones get 413
 */
@ConfigurationProperties("tandem.api")
public record ApiProperties(@DefaultValue("1MB") DataSize maxBodyBytes) {
}
