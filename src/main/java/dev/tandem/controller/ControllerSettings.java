package dev.tandem.controller;

import java.time.Duration;

/**
 * The controller's live settings: they may change while it runs.
 *
 * @param compactionWindow how far behind its write frontier an index stays readable, unless set per index
 * @param maxPendingPeeks reads in flight beyond which new reads are refused (503)
 * @param maxResultRows the largest result a read may return
 * @param defaultTimeout how long a read waits to be answerable when the request sets no timeout
 */
public record ControllerSettings(Duration compactionWindow, int maxPendingPeeks, long maxResultRows, Duration defaultTimeout) {

    public static final ControllerSettings DEFAULTS = new ControllerSettings(Duration.ofSeconds(1), 1024, 100_000, Duration.ofSeconds(10));
}
