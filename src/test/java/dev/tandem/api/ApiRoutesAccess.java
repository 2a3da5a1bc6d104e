package dev.tandem.api;

import java.util.Map;

/** The routes table of {@link ApiRoutes}, for tests. */
final class ApiRoutesAccess {

    private ApiRoutesAccess() {
    }

    static Map<String, String> allowed() {
        return ApiRoutes.ALLOWED;
    }
}
