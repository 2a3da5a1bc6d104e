package dev.tandem.api;

import org.springframework.http.HttpStatus;

/** A request the API itself refuses before it reaches the controller: a malformed body, a bad field, a wrong method. */
public final class ApiException extends RuntimeException {

    private final HttpStatus status;

    public ApiException(HttpStatus status, String detail) {
        super(detail, null, false, false);
        this.status = status;
    }

    public HttpStatus status() {
        return status;
    }

    static ApiException badRequest(String detail) {
        return new ApiException(HttpStatus.BAD_REQUEST, detail);
    }
}
