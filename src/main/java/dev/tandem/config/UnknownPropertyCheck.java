package dev.tandem.config;

import dev.tandem.api.ApiProperties;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * Finds {@code tandem.*} properties that no setting binds (a typo such as {@code tandem.storage.fsyn}
 * would otherwise be silently ignored) and names, for each, the closest valid key. The valid keys are
 * read from the settings records themselves, so they cannot drift from what is bound.
 */
final class UnknownPropertyCheck {

    private static final System.Logger LOG = System.getLogger(UnknownPropertyCheck.class.getName());

    /** Keys read outside the settings records (the optional config server's URL, in application.yaml). */
    private static final List<String> OTHER_KEYS = List.of("tandem.config-server.url");

    /** Secrets by name ({@code tandem.secrets.<name>}, e.g. a PostgreSQL source's password): any name is valid. */
    static final String SECRETS = "tandem.secrets.";

    private UnknownPropertyCheck() {
    }

    /** Every valid {@code tandem.*} key, in kebab case. */
    static Set<String> validKeys() {
        Set<String> keys = new TreeSet<>(OTHER_KEYS);
        collect("tandem", TandemProperties.class, keys);
        collect("tandem.api", ApiProperties.class, keys);
        collect("tandem.security", SecurityProperties.class, keys);
        collect("tandem.security.tokens", SecurityProperties.Token.class, keys);
        keys.remove("tandem.security.tokens");
        collect("tandem.subscribe", SubscribeProperties.class, keys);
        collect("tandem.sources", SourceProperties.class, keys);
        return keys;
    }

    private static void collect(String prefix, Class<?> type, Set<String> out) {
        for (RecordComponent c : type.getRecordComponents()) {
            String key = prefix + "." + kebab(c.getName());
            if (c.getType().isRecord()) {
                collect(key, c.getType(), out);
            } else {
                out.add(key);
            }
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** A warning for each unknown {@code tandem.*} property of {@code environment}, in key order. */
    static List<String> warnings(Environment environment) {
        Set<String> valid = validKeys();
        Set<String> normalizedValid = new TreeSet<>();
        valid.forEach(k -> normalizedValid.add(normalize(k)));
        Set<String> unknown = new TreeSet<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            iterable.stream().map(ConfigurationPropertyName::toString)
                    .filter(name -> name.startsWith("tandem.") && !name.startsWith(SECRETS))
                    .filter(name -> !normalizedValid.contains(normalize(name)))
                    .forEach(unknown::add);
        }
        List<String> out = new ArrayList<>();
        for (String name : unknown) {
            out.add("unknown setting '" + name + "' is ignored; did you mean '" + closest(name, valid) + "'?");
        }
        return out;
    }

    /** Logs {@link #warnings} at WARNING; returns them. */
    static List<String> warn(Environment environment) {
        List<String> warnings = warnings(environment);
        warnings.forEach(w -> LOG.log(System.Logger.Level.WARNING, w));
        return warnings;
    }

    /** Case, dashes and underscores do not matter to relaxed binding, so they do not matter here. */
    private static String normalize(String key) {
        return key.toLowerCase(Locale.ROOT).replaceAll("\\[\\d+]", "").replace("-", "").replace("_", "");
    }

    /** The valid key at the least edit distance from {@code name} (ties: the first in key order). */
    static String closest(String name, Set<String> valid) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String key : valid) {
            int d = distance(normalize(name), normalize(key));
            if (d < bestDistance) {
                best = key;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(substitute, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
