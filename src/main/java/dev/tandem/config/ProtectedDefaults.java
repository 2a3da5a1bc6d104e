package dev.tandem.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Protected by default: with no credentials configured ({@code tandem.security.tokens},
 * {@code tandem.security.jwt.*}) the server and the management server listen on loopback only, and a
 * non-loopback {@code server.address} or {@code management.server.address} refuses to start.
 */
final class ProtectedDefaults implements EnvironmentPostProcessor, Ordered {

    static final String NO_CREDENTIALS = "no credentials are configured (tandem.security.tokens[N].*, tandem.security.jwt.issuer-uri"
            + " or tandem.security.jwt.jwk-set-uri)";

    private final Log log;

    ProtectedDefaults(DeferredLogFactory logs) {
        this.log = logs.getLog(ProtectedDefaults.class);
    }

    @Override
    public int getOrder() {
        // After the config data (files, imports, the config server) is loaded.
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.getProperty("spring.main.web-application-type", "reactive").equalsIgnoreCase("reactive")) {
            return;
        }
        SecurityProperties security = Binder.get(environment).bindOrCreate("tandem.security", SecurityProperties.class);
        if (security.credentialsConfigured()) {
            return;
        }
        Map<String, Object> loopback = new LinkedHashMap<>();
        String managementPort = environment.getProperty("management.server.port");
        boolean separateManagement = managementPort != null && !managementPort.equals(environment.getProperty("server.port", "8080"));
        for (String key : separateManagement ? new String[] {"server.address", "management.server.address"} : new String[] {"server.address"}) {
            String address = environment.getProperty(key);
            if (address == null || address.isBlank()) {
                loopback.put(key, "127.0.0.1");
            } else if (!isLoopback(address)) {
                throw new IllegalStateException(key + "=" + address + " is not a loopback address and " + NO_CREDENTIALS
                        + ": configure API tokens (tandem.jar token new --name NAME --roles reader) or a JWT issuer,"
                        + " or set " + key + "=127.0.0.1");
            }
        }
        if (!loopback.isEmpty()) {
            environment.getPropertySources().addFirst(new MapPropertySource("tandemProtectedDefaults", loopback));
        }
        log.warn(NO_CREDENTIALS + ": Tandem listens on loopback only (127.0.0.1) and asks no credentials there");
    }

    static boolean isLoopback(String address) {
        try {
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
