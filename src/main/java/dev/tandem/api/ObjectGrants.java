package dev.tandem.api;

import dev.tandem.security.AccessPrincipal;
import org.springframework.http.HttpStatus;

/** Checks a read against a caller's object allow-list: the grant is on the object named in {@code from}. */
final class ObjectGrants {

    private ObjectGrants() {
    }

    /** Throws 403 unless {@code caller} (null: no credentials in use) may read what {@code read} names. */
    static ReadJson check(AccessPrincipal caller, ReadJson read) {
        if (caller == null || caller.objects() == null) {
            return read;
        }
        if (read.plan() != null) {
            throw new ApiException(HttpStatus.FORBIDDEN, "'" + caller.name() + "' may read only the objects it is granted:"
                    + " name one in 'from' instead of sending a plan");
        }
        return checkName(caller, read.from(), read);
    }

    /** Throws 403 unless {@code caller} may touch the object named {@code name}. */
    static <T> T checkName(AccessPrincipal caller, String name, T value) {
        if (caller != null && name != null && !caller.mayAccess(name)) {
            throw new ApiException(HttpStatus.FORBIDDEN, "'" + caller.name() + "' is not granted access to '" + JsonBody.abbreviate(name) + "'");
        }
        return value;
    }
}
