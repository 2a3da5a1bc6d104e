package dev.tandem.protocol;

/**
 * A malformed protocol frame: {@link #path()} is the JSON path of the offending value ({@code $} is the
 * frame, e.g. {@code $.dataflow.objects_to_build[0].plan}) and {@link #reason()} says what is wrong; the
 * message is {@code "path: reason"}.
 */
public final class ProtocolException extends IllegalArgumentException {

    private final String path;
    private final String reason;

    public ProtocolException(String path, String reason) {
        super(path + ": " + reason);
        this.path = path;
        this.reason = reason;
    }

    public String path() {
        return path;
    }

    public String reason() {
        return reason;
    }
}
