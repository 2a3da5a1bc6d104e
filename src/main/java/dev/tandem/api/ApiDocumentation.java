package dev.tandem.api;

import io.swagger.v3.core.util.Json31;
import io.swagger.v3.oas.models.OpenAPI;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The OpenAPI description served by springdoc at {@code /v3/api-docs}. Springdoc does not describe
 * un-annotated functional routes, so the description of {@code /v1} is written by hand in
 * {@code openapi/tandem-api.json} (a test checks it lists every route) and given to springdoc here.
 */
@Configuration(proxyBeanMethods = false)
public class ApiDocumentation {

    @Bean
    OpenAPI tandemOpenApi() {
        try (InputStream in = ApiDocumentation.class.getResourceAsStream("/openapi/tandem-api.json")) {
            return Json31.mapper().readValue(in, OpenAPI.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read openapi/tandem-api.json", e);
        }
    }
}
