package dev.tandem.security;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What a principal may do. {@code reader} reads (peeks, lookups, introspection, catalog reads, change
 * streams); {@code writer} also writes rows; {@code admin} also changes the catalog and settings;
 * {@code replica} drives the replica-mode compute endpoint and nothing else.
 */
public enum Role {
    READER, WRITER, ADMIN, REPLICA;

    /** The roles a principal granted {@code granted} holds: each role with every role it includes. */
    public static Set<Role> expand(Set<Role> granted) {
        EnumSet<Role> out = EnumSet.noneOf(Role.class);
        for (Role r : granted) {
            switch (r) {
                case ADMIN -> out.addAll(EnumSet.of(ADMIN, WRITER, READER));
                case WRITER -> out.addAll(EnumSet.of(WRITER, READER));
                case READER -> out.add(READER);
                case REPLICA -> out.add(REPLICA);
            }
        }
        return Set.copyOf(out);
    }

    /** The role named {@code name} (case-insensitive), or an {@link IllegalArgumentException} naming the valid ones. */
    public static Role parse(String name) {
        String n = name.strip().toUpperCase(Locale.ROOT);
        for (Role r : values()) {
            if (r.name().equals(n)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown role '" + name.strip() + "'; expected reader, writer, admin or replica");
    }

    /** The role's name as configured and shown: lower case. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
