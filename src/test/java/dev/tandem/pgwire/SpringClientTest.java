package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A small Spring Boot client application reads from Tandem over the wire protocol as it would from
 * PostgreSQL: reactively through R2DBC ({@code r2dbc-postgresql}) and blocking through
 * {@link JdbcClient}, configured by the {@code spring.r2dbc.*} and {@code spring.datasource.*}
 * properties the README shows.
 */
class SpringClientTest {

    @TempDir
    Path dir;

    /** The client application: a service reading prices through both drivers. */
    @Configuration(proxyBeanMethods = false)
    static class ClientApplication {

        @Bean
        ConnectionFactory connectionFactory(@Value("${spring.r2dbc.url}") String url, @Value("${spring.r2dbc.username}") String user) {
            return ConnectionFactories.get(url.replace("r2dbc:postgresql://", "r2dbc:postgresql://" + user + "@"));
        }

        @Bean
        JdbcClient jdbcClient(@Value("${spring.datasource.url}") String url, @Value("${spring.datasource.username}") String user) {
            return JdbcClient.create(new DriverManagerDataSource(url, user, ""));
        }

        @Bean
        PriceService priceService(ConnectionFactory r2dbc, JdbcClient jdbc) {
            return new PriceService(r2dbc, jdbc);
        }
    }

    /** Reads a product's price reactively (R2DBC) and lists cheap products (JDBC). */
    record PriceService(ConnectionFactory r2dbc, JdbcClient jdbc) {

        Mono<Double> price(long id) {
            return Mono.usingWhen(Mono.from(r2dbc.create()),
                    c -> Flux.from(c.createStatement("SELECT price FROM products WHERE id = $1").bind("$1", id).execute())
                            .flatMap(r -> r.map((row, meta) -> row.get("price", Double.class)))
                            .next(),
                    c -> Mono.from(c.close()));
        }

        List<String> cheaperThan(double limit) {
            return jdbc.sql("SELECT name FROM products WHERE price < ? ORDER BY name").param(limit).query(String.class).list();
        }
    }

    @Test
    void aSpringBootServiceReadsThroughR2dbcAndJdbc() throws Exception {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=setup&sslmode=disable");
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE products (id bigint NOT NULL, name text, price double precision)");
                s.execute("INSERT INTO products VALUES (1, 'apple', 0.5), (2, 'melon', 3.0), (3, 'fig', 1.25)");
                s.execute("CREATE INDEX products_by_id ON products (id)");
            }
            Map<String, Object> props = Map.of(
                    "spring.main.web-application-type", "none",
                    "spring.config.name", "tandem-sql-client",
                    "spring.r2dbc.url", "r2dbc:postgresql://127.0.0.1:" + server.port() + "/tandem",
                    "spring.r2dbc.username", "app",
                    "spring.datasource.url", "jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?sslmode=disable",
                    "spring.datasource.username", "app");
            try (ConfigurableApplicationContext client = new SpringApplicationBuilder(ClientApplication.class)
                    .web(WebApplicationType.NONE)
                    .run(props.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new))) {
                PriceService prices = client.getBean(PriceService.class);
                assertThat(prices.price(2).block(Duration.ofSeconds(30))).isEqualTo(3.0);
                assertThat(prices.price(3).block(Duration.ofSeconds(30))).isEqualTo(1.25);
                assertThat(prices.price(9).blockOptional(Duration.ofSeconds(30))).isEmpty();
                assertThat(prices.cheaperThan(2.0)).containsExactly("apple", "fig");
            }
        }
    }
}
