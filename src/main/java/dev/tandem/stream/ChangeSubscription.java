package dev.tandem.stream;

import reactor.core.publisher.Flux;

/** One open change stream: its messages (subscribe once) and the accounting of what was sent. */
public interface ChangeSubscription {

    long id();

    /** The messages; cancelling ends the subscription and releases its hold. */
    Flux<ChangeMessage> messages();

    /** Records that a message of {@code bytes} encoded bytes went out to the client. */
    void sent(long bytes);
}
