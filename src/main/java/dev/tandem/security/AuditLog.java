package dev.tandem.security;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The audit trail: every catalog change, drop, settings change and refused authentication, with the
 * principal, the source address and the outcome. Each entry is logged on the logger
 * {@value #LOGGER} and the most recent ones are kept in memory.
 */
public final class AuditLog {

    /** The logger the entries are written to. */
    public static final String LOGGER = "tandem.audit";

    /** One audited action; {@code principal} is {@code anonymous} when none authenticated. */
    public record Entry(Instant time, String principal, String address, String action, String target, String outcome) {
        @Override
        public String toString() {
            return "principal=" + principal + " address=" + address + " action=" + action + " target=" + target + " outcome=" + outcome;
        }
    }

    private static final System.Logger LOG = System.getLogger(LOGGER);

    private final Clock clock;
    private final int capacity;
    private final ArrayDeque<Entry> recent = new ArrayDeque<>();

    public AuditLog(Clock clock, int capacity) {
        this.clock = clock;
        this.capacity = capacity;
    }

    /** Records and logs one entry. */
    public void record(String principal, String address, String action, String target, String outcome) {
        Entry e = new Entry(clock.instant(), principal, address, action, target, outcome);
        LOG.log(System.Logger.Level.INFO, e.toString());
        synchronized (recent) {
            if (recent.size() == capacity) {
                recent.removeFirst();
            }
            recent.addLast(e);
        }
    }

    /** The most recent entries, oldest first. */
    public List<Entry> recent() {
        synchronized (recent) {
            return List.copyOf(recent);
        }
    }
}
