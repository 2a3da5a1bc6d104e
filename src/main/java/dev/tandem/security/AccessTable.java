package dev.tandem.security;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which role each route and each WebSocket operation needs: the single declaration the server enforces.
 * A route or operation that is not declared here is refused to everyone (when credentials are configured).
 */
public final class AccessTable {

    /**
     * A route: an HTTP method, a path pattern ({@code /v1/tables/{name}}) and the role it needs.
     *
     * @param object the path variable naming the table, view or index the route touches (checked against
     *               a principal's object allow-list), or null
     */
    public record Route(String method, String pattern, Role role, String object) {
    }

    private final List<Route> routes;
    private final Map<String, Role> ops;

    private AccessTable(List<Route> routes, Map<String, Role> ops) {
        this.routes = List.copyOf(routes);
        this.ops = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(ops));
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<Route> routes() {
        return routes;
    }

    /** The declared WebSocket operations and the role each needs, in declaration order. */
    public Map<String, Role> ops() {
        return ops;
    }

    /** The role the WebSocket operation {@code op} needs; empty when it is not declared. */
    public Optional<Role> op(String op) {
        return Optional.ofNullable(ops.get(op));
    }

    /** Collects the declarations; each method is one line per route or operation. */
    public static final class Builder {
        private final List<Route> routes = new ArrayList<>();
        private final Map<String, Role> ops = new LinkedHashMap<>();

        private Builder() {
        }

        /** Declares {@code method pattern} as needing {@code role}. */
        public Builder route(String method, String pattern, Role role) {
            return route(method, pattern, role, null);
        }

        /** Declares {@code method pattern} as needing {@code role} and a grant on the object in path variable {@code object}. */
        public Builder route(String method, String pattern, Role role, String object) {
            for (Route r : routes) {
                if (r.method().equals(method) && r.pattern().equals(pattern)) {
                    throw new IllegalArgumentException(method + " " + pattern + " is declared twice");
                }
            }
            routes.add(new Route(method, pattern, role, object));
            return this;
        }

        /** Declares the WebSocket operation {@code op} as needing {@code role}. */
        public Builder op(String op, Role role) {
            if (ops.putIfAbsent(op, role) != null) {
                throw new IllegalArgumentException("op " + op + " is declared twice");
            }
            return this;
        }

        public AccessTable build() {
            return new AccessTable(routes, new LinkedHashMap<>(ops));
        }
    }
}
