package dev.tandem.api;

import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Turns every error of every endpoint, including routing errors (unknown path, wrong method, wrong
 * media type) and unforeseen failures, into {@code application/problem+json}. It runs before Spring
 * Boot's own error handler.
 */
@Component
@Order(-2)
public class ProblemExceptionHandler implements WebExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(ProblemExceptionHandler.class);

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable error) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.error(error);
        }
        Problem problem = Problem.of(error);
        if (problem.isServerError() && problem.status() == HttpStatus.INTERNAL_SERVER_ERROR.value()) {
            LOG.error("unexpected error on {} {}", exchange.getRequest().getMethod(), exchange.getRequest().getPath(), error);
        }
        return write(exchange, problem);
    }

    /** Writes {@code problem} as the response. */
    static Mono<Void> write(ServerWebExchange exchange, Problem problem) {
        ServerHttpResponse response = exchange.getResponse();
        response.setRawStatusCode(problem.status());
        HttpHeaders headers = response.getHeaders();
        headers.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (problem.retryAfterSeconds() > 0) {
            headers.set(HttpHeaders.RETRY_AFTER, Long.toString(problem.retryAfterSeconds()));
        }
        if (problem.status() == HttpStatus.METHOD_NOT_ALLOWED.value() && exchange.getAttribute(ApiRoutes.ALLOW) instanceof String allow) {
            headers.set(HttpHeaders.ALLOW, allow);
        }
        byte[] bytes = problem.json(exchange.getRequest().getPath().value()).toString().getBytes(StandardCharsets.UTF_8);
        DataBuffer buffer = response.bufferFactory().wrap(bytes);
        return response.writeWith(Mono.just(buffer));
    }
}
