package dev.tandem.security;

import java.util.Set;

/**
 * An authenticated caller: its name, the roles it holds (already expanded: a writer also holds
 * reader) and the objects it may touch ({@code null}: every object).
 *
 * @param source how it authenticated: {@code token} or {@code jwt}
 */
public record AccessPrincipal(String name, Set<Role> roles, Set<String> objects, String source) {

    public AccessPrincipal {
        roles = Role.expand(roles);
        objects = objects == null ? null : Set.copyOf(objects);
    }

    /** Whether the principal holds {@code role}. */
    public boolean has(Role role) {
        return roles.contains(role);
    }

    /**
     * Whether the principal may touch the table, view or index named {@code object}: the grant is on
     * the named object itself (a read of a view needs the view's grant, not the grants of what it reads).
     */
    public boolean mayAccess(String object) {
        return objects == null || objects.contains(object);
    }
}
