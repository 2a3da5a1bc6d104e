package dev.tandem.expr;

import dev.tandem.json.StrictJson;

/**
 * A malformed or ill-typed expression: {@link #path()} says where (a JSON path such as
 * {@code filter[0].args[1]}) and {@link #reason()} why; the message is {@code "path: reason"}.
 */
public class ExprException extends RuntimeException {

    private final String path;
    private final String reason;

    public ExprException(String path, String reason) {
        super(path == null || path.isEmpty() ? reason : path + ": " + reason);
        this.path = path == null ? "" : path;
        this.reason = reason;
    }

    public String path() {
        return path;
    }

    public String reason() {
        return reason;
    }

    /** The path of a member of the value at {@code path}: {@code path.member}, or {@code member} at the root. */
    public static String child(String path, String member) {
        return StrictJson.child(path, member);
    }

    /** The path of element {@code i} of the array at {@code path}: {@code path[i]}. */
    public static String index(String path, int i) {
        return StrictJson.index(path, i);
    }
}
