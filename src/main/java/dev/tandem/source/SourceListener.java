package dev.tandem.source;

/**
 * Told when a source starts and stops ingesting (metrics register and remove its meters), and how long
 * the stages of its ingestion take.
 */
public interface SourceListener {

    SourceListener NONE = new SourceListener() {
        @Override
        public void started(String name) {
        }

        @Override
        public void stopped(String name) {
        }
    };

    void started(String name);

    void stopped(String name);

    /**
     * An upstream transaction of source {@code name} arrived {@code micros} after its upstream commit (the
     * upstream's commit time against this server's clock, so meaningful when both share a clock).
     */
    default void received(String name, long micros) {
    }

    /** A write of source {@code name} became durable {@code micros} after the first transaction in it arrived. */
    default void durable(String name, long micros) {
    }
}
