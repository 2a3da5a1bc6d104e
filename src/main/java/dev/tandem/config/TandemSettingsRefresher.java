package dev.tandem.config;

import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerSettings;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Re-reads {@code tandem.*} whenever Spring Cloud reports a changed environment ({@code /actuator/refresh},
 * a config server push): live settings go to the controller at once; a changed start-up-only setting
 * is not applied — it is logged as a warning and kept in {@link #restartRequired()} until a restart
 * (or until the configuration goes back to the running value).
 */
final class TandemSettingsRefresher implements ApplicationListener<EnvironmentChangeEvent> {

    private static final Logger log = LoggerFactory.getLogger(TandemSettingsRefresher.class);

    private final Environment environment;
    private final TandemProperties running;
    private final ObjectProvider<Controller> controller;
    private volatile TandemProperties configured;
    private volatile Map<String, String> restartRequired = Map.of();
    private volatile String rejected;

    TandemSettingsRefresher(Environment environment, TandemProperties running, ObjectProvider<Controller> controller) {
        this.environment = environment;
        this.running = running;
        this.configured = running;
        this.controller = controller;
    }

    @Override
    public void onApplicationEvent(EnvironmentChangeEvent event) {
        refresh();
    }

    /** Binds {@code tandem.*} from the environment again and applies what may change while running. */
    synchronized void refresh() {
        TandemProperties next;
        try {
            next = Binder.get(environment).bindOrCreate("tandem", TandemProperties.class);
        } catch (BindException e) {
            rejected = e.getMessage() + (e.getCause() != null ? ": " + e.getCause().getMessage() : "");
            log.warn("tandem.* settings were not applied: {}", rejected);
            return;
        }
        rejected = null;
        Map<String, String> changed = new LinkedHashMap<>();
        Map<String, Object> now = running.startupSettings();
        next.startupSettings().forEach((key, value) -> {
            Object current = now.get(key);
            if (!Objects.equals(current, value)) {
                changed.put(key, current + " -> " + value);
                if (!restartRequired.containsKey(key) || !restartRequired.get(key).equals(changed.get(key))) {
                    log.warn("{} changed from {} to {}: it is a start-up-only setting and is not applied until Tandem restarts",
                            key, current, value);
                }
            }
        });
        restartRequired = Collections.unmodifiableMap(changed);
        ControllerSettings settings = TandemConfiguration.settings(next);
        Controller c = controller.getIfAvailable();
        if (c != null && !c.settings().equals(settings)) {
            c.updateSettings(settings);
            log.info("Applied live settings: {}", settings);
        }
        configured = next;
    }

    /** The running value and the configured one ({@code "old -> new"}) of each start-up-only setting that differ. */
    Map<String, String> restartRequired() {
        return restartRequired;
    }

    /** Why the last refresh could not bind {@code tandem.*}, or null. */
    String rejected() {
        return rejected;
    }

    /** The settings as last bound (live ones in force; start-up-only ones possibly pending a restart). */
    TandemProperties configured() {
        return configured;
    }
}
