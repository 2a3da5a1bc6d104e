package dev.tandem.security;

import java.util.Optional;

/**
 * Who a presented secret belongs to. HTTP presents a bearer secret alone; a protocol that sends a user
 * name with its secret (the PostgreSQL wire protocol) asks with both.
 */
public interface PrincipalLookup {

    /** The principal whose token has secret {@code secret}, if any. */
    Optional<AccessPrincipal> authenticate(String secret);

    /** The principal named {@code name} if {@code secret} is its token's secret. */
    Optional<AccessPrincipal> verify(String name, String secret);
}
