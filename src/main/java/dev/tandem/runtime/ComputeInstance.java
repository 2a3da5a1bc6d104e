package dev.tandem.runtime;

import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeResponse;
import reactor.core.publisher.Flux;

/** Something that takes compute commands in order and answers with a stream of responses. */
public interface ComputeInstance extends AutoCloseable {

    /** Enqueues {@code command}; it takes effect asynchronously, after every command sent before it. */
    void send(ComputeCommand command);

    /** The responses, hot: subscribe before sending commands whose answers matter. */
    Flux<ComputeResponse> responses();

    @Override
    void close();
}
