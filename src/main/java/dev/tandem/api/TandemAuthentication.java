package dev.tandem.api;

import dev.tandem.security.AccessPrincipal;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/** A caller authenticated by an API token or a JWT, as Spring Security sees it: its roles as {@code ROLE_*} authorities. */
final class TandemAuthentication extends AbstractAuthenticationToken {

    private final AccessPrincipal principal;

    TandemAuthentication(AccessPrincipal principal) {
        super(principal.roles().stream().map(r -> new SimpleGrantedAuthority("ROLE_" + r.name())).toList());
        this.principal = principal;
        setAuthenticated(true);
    }

    @Override
    public Object getCredentials() {
        return "";
    }

    @Override
    public AccessPrincipal getPrincipal() {
        return principal;
    }

    @Override
    public String getName() {
        return principal.name();
    }

    /** The caller of an exchange's principal, or null when it is not a Tandem caller (open mode, anonymous). */
    static AccessPrincipal of(java.security.Principal p) {
        return p instanceof TandemAuthentication t ? t.principal : null;
    }
}
