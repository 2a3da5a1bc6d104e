package dev.tandem.source;

/** Told when a source starts and stops ingesting (metrics register and remove its meters). */
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
}
