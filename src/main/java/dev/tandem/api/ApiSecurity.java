package dev.tandem.api;

import dev.tandem.config.SecurityProperties;
import dev.tandem.controller.ReadAdmission;
import dev.tandem.security.AccessPrincipal;
import dev.tandem.security.AccessTable;
import dev.tandem.security.AuditLog;
import dev.tandem.security.LoginThrottle;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.security.Role;
import dev.tandem.security.TokenDirectory;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.authentication.AuthenticationServiceException;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationResult;
import org.springframework.security.authorization.ReactiveAuthorizationManager;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.security.oauth2.server.resource.authentication.JwtReactiveAuthenticationManager;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.authorization.AuthorizationContext;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.firewall.ServerExchangeRejectedHandler;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * Spring Security wiring of {@link ApiAccess}: bearer authentication (API tokens, and JWTs when a JWT
 * issuer is configured), the role of every declared route, refusal of every undeclared one,
 * problem+json 401/403 answers, token rotation on {@code /actuator/refresh}, the audit trail and the
 * per-principal read limits. With no credentials configured (loopback only, see {@code ProtectedDefaults})
 * every request is let through as before.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SecurityProperties.class)
public class ApiSecurity {

    private static final Logger LOG = LoggerFactory.getLogger(ApiSecurity.class);

    /** Exchange attribute: why access was refused, for the 403's detail. */
    static final String DENIED = ApiSecurity.class.getName() + ".denied";

    /** The name audited and limited for callers without credentials (open mode). */
    static final String ANONYMOUS = "anonymous";

    /**
     * Spring Security's own observations (a timer and a span around every filter of every request) took
     * about a tenth of the event loops' CPU in a profile of {@code bench read-isolation}, and record nothing
     * that {@code http.server.requests} and the audit log do not; they are off.
     */
    @Bean
    SecurityObservationSettings tandemSecurityObservations() {
        return SecurityObservationSettings.noObservations();
    }

    @Bean
    TokenDirectory tandemTokens(SecurityProperties props) {
        return new TokenDirectory(props.apiTokens());
    }

    @Bean
    AuditLog tandemAuditLog() {
        return new AuditLog(Clock.systemUTC(), 1000);
    }

    @Bean
    PrincipalLimits tandemPrincipalLimits(SecurityProperties props, ObjectProvider<MeterRegistry> meters) {
        // Without credentials the callers are counted by address ("anonymous@127.0.0.1"): the costly kinds
        // (slow-path dataflows, plans, subscriptions) are limited as with credentials; reads in flight are not,
        // as every fast-path read of every local client would otherwise contend on one counter.
        boolean on = props.credentialsConfigured();
        SecurityProperties.Limits l = props.limits();
        return new PrincipalLimits(on ? l.maxConcurrentPeeks() : 0, l.maxPendingDataflows(), l.maxSubscriptions(),
                l.maxConcurrentPlans(), (principal, kind) -> {
            MeterRegistry m = meters.getIfAvailable();
            if (m != null) {
                m.counter("tandem.principal.limited", "principal", principal, "kind", kind.name().toLowerCase(java.util.Locale.ROOT)).increment();
            }
        });
    }

    /**
     * Slows repeated failed logins over every surface ({@code tandem.security.login-delay}), counting
     * them as {@code tandem_auth_failures_total{surface,reason}}.
     */
    @Bean
    LoginThrottle tandemLoginThrottle(SecurityProperties props, ObjectProvider<MeterRegistry> meters) {
        SecurityProperties.LoginDelay d = props.loginDelay();
        return new LoginThrottle(d.base(), d.max(), d.forget(), d.maxEntries(), System::nanoTime, (surface, reason) -> {
            MeterRegistry m = meters.getIfAvailable();
            if (m != null) {
                m.counter("tandem.auth.failures", "surface", surface, "reason", reason).increment();
            }
        });
    }

    /**
     * A bearer authentication slowed by {@code throttle} for the client at {@code address}: an attempt
     * waits what the address owes before the token is checked, a refusal what its failure owes (on a timer,
     * never on a thread), and a success forgets the address's failures.
     */
    static ReactiveAuthenticationManager throttled(ReactiveAuthenticationManager manager, LoginThrottle throttle, String address) {
        return authentication -> {
            Duration before = throttle.beforeAttempt(address);
            Mono<Authentication> checked = Mono.defer(() -> manager.authenticate(authentication))
                    .onErrorResume(org.springframework.security.core.AuthenticationException.class, e -> {
                        Duration owed = throttle.failed("http", "token", address, null);
                        return owed.isZero() ? Mono.error(e) : Mono.delay(owed).then(Mono.error(e));
                    })
                    .doOnNext(a -> throttle.succeeded(address));
            return before.isZero() ? checked : Mono.delay(before).then(checked);
        };
    }

    /**
     * Re-reads the tokens and the limits on every environment change ({@code /actuator/refresh}): a
     * removed token stops working at once. A bad token configuration is refused whole and logged.
     */
    @Bean
    ApplicationListener<EnvironmentChangeEvent> tandemTokenRotation(Environment environment, TokenDirectory tokens, PrincipalLimits limits,
            SecurityProperties atStart) {
        return event -> {
            if (!atStart.credentialsConfigured()) {
                return;
            }
            try {
                SecurityProperties next = Binder.get(environment).bindOrCreate("tandem.security", SecurityProperties.class);
                List<String> before = tokens.names();
                tokens.replace(next.apiTokens());
                limits.setLimits(next.limits().maxConcurrentPeeks(), next.limits().maxPendingDataflows(), next.limits().maxSubscriptions(),
                        next.limits().maxConcurrentPlans());
                LOG.info("API tokens re-read: {} (before: {})", tokens.names(), before);
            } catch (RuntimeException e) {
                LOG.warn("API tokens were not changed: {}", e.getMessage());
            }
        };
    }

    /** Bearer secrets: a JWT (three dot-separated parts) when a JWT issuer is configured, else an API token. */
    @Bean
    ReactiveAuthenticationManager tandemAuthentication(TokenDirectory tokens, SecurityProperties props) {
        ReactiveAuthenticationManager jwt = props.jwt().enabled() ? jwtManager(props.jwt()) : null;
        return authentication -> {
            if (!(authentication instanceof BearerTokenAuthenticationToken bearer)) {
                return Mono.empty();
            }
            String secret = bearer.getToken();
            if (jwt != null && secret.chars().filter(c -> c == '.').count() == 2) {
                return jwt.authenticate(authentication);
            }
            return Mono.fromCallable(() -> tokens.authenticate(secret))
                    .flatMap(p -> p.<Mono<Authentication>>map(a -> Mono.just(new TandemAuthentication(a)))
                            .orElseGet(() -> Mono.error(new InvalidBearerTokenException("the bearer token is not a configured API token"))));
        };
    }

    private static ReactiveAuthenticationManager jwtManager(SecurityProperties.Jwt config) {
        // With an issuer alone, its keys are found through its discovery document when the first JWT
        // arrives: the identity provider need not be up for Tandem to start.
        NimbusReactiveJwtDecoder decoder = config.jwkSetUri() != null && !config.jwkSetUri().isBlank()
                ? NimbusReactiveJwtDecoder.withJwkSetUri(config.jwkSetUri()).build()
                : NimbusReactiveJwtDecoder.withIssuerLocation(config.issuerUri()).build();
        List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
        validators.add(config.issuerUri() != null && !config.issuerUri().isBlank()
                ? JwtValidators.createDefaultWithIssuer(config.issuerUri()) : JwtValidators.createDefault());
        if (config.audience() != null && !config.audience().isBlank()) {
            validators.add(new JwtClaimValidator<Collection<String>>(JwtClaimNames.AUD, aud -> aud != null && aud.contains(config.audience())));
        }
        decoder.setJwtValidator(new DelegatingOAuth2TokenValidator<>(validators));
        ReactiveJwtDecoder checked = decoder;
        JwtReactiveAuthenticationManager manager = new JwtReactiveAuthenticationManager(checked);
        manager.setJwtAuthenticationConverter(jwt -> Mono.just(new TandemAuthentication(jwtPrincipal(jwt, config))));
        // A token that could not be checked because the identity provider did not answer (its discovery document
        // or its keys) is no fault of the token: 503 with Retry-After, where Spring rethrows it (a 500).
        return authentication -> manager.authenticate(authentication).onErrorMap(AuthenticationServiceException.class, e -> {
            LOG.warn("a JWT could not be verified: {}", e.getMessage());
            return new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "the bearer token could not be verified now: the JWT issuer's keys"
                    + " could not be fetched (tandem.security.jwt); retry shortly");
        });
    }

    /** The caller a verified JWT stands for: its name claim, and the Tandem roles in its roles claim (others ignored). */
    static AccessPrincipal jwtPrincipal(Jwt jwt, SecurityProperties.Jwt config) {
        Object claim = jwt.getClaims().get(config.rolesClaim());
        List<String> names = switch (claim) {
            case null -> List.of();
            case Collection<?> c -> c.stream().map(String::valueOf).toList();
            default -> Arrays.asList(String.valueOf(claim).split("[ ,]+"));
        };
        Set<Role> roles = new LinkedHashSet<>();
        for (String n : names) {
            try {
                roles.add(Role.parse(n));
            } catch (IllegalArgumentException ignoredRole) {
                // Roles of other applications in a shared identity provider are not Tandem's.
            }
        }
        Object name = jwt.getClaims().get(config.nameClaim());
        return new AccessPrincipal(name == null ? jwt.getSubject() : String.valueOf(name), roles, null, "jwt");
    }

    /**
     * A request Spring Security's firewall rejects before anything else sees it (an encoded percent,
     * slash or period in the path, a path that is not normalized) is answered 400 as a problem.
     */
    @Bean
    ServerExchangeRejectedHandler tandemRejectedRequests() {
        return (exchange, rejected) -> ProblemExceptionHandler.write(exchange,
                Problem.of(HttpStatus.BAD_REQUEST, REJECTED, "the request was rejected: " + rejected.getMessage()));
    }

    /** The problem type slug of a request rejected by the firewall. */
    static final String REJECTED = "rejected-request";

    @Bean
    SecurityWebFilterChain tandemSecurity(ServerHttpSecurity http, SecurityProperties props, ReactiveAuthenticationManager authentication,
            AuditLog audit, LoginThrottle throttle) {
        http.csrf(ServerHttpSecurity.CsrfSpec::disable)
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .requestCache(c -> c.requestCache(NoOpServerRequestCache.getInstance()))
                .securityContextRepository(NoOpServerSecurityContextRepository.getInstance());
        if (!props.credentialsConfigured()) {
            return http.authorizeExchange(e -> e.anyExchange().permitAll()).build();
        }
        SecurityProblems problems = new SecurityProblems(audit);
        http.oauth2ResourceServer(o -> o.authenticationManagerResolver(exchange -> Mono.just(throttled(authentication, throttle, address(exchange))))
                        .authenticationEntryPoint(problems::unauthenticated)
                        .accessDeniedHandler(problems::denied))
                .exceptionHandling(e -> e.authenticationEntryPoint(problems::unauthenticated).accessDeniedHandler(problems::denied))
                .authorizeExchange(e -> {
                    for (AccessTable.Route r : ApiAccess.TABLE.routes()) {
                        var matcher = e.pathMatchers(HttpMethod.valueOf(r.method()), r.pattern());
                        if (r.role() == null) {
                            matcher.permitAll();
                        } else {
                            matcher.access(need(r));
                        }
                    }
                    e.anyExchange().access(undeclared());
                });
        return http.build();
    }

    /** Grants a declared route to a caller holding its role (and the grant on its object, if it names one). */
    private static ReactiveAuthorizationManager<AuthorizationContext> need(AccessTable.Route route) {
        return (authentication, context) -> authentication.filter(Authentication::isAuthenticated).<AuthorizationResult>map(a -> {
            AccessPrincipal p = TandemAuthentication.of(a);
            String refusal;
            if (p == null || !p.has(route.role())) {
                refusal = route.method() + " " + route.pattern() + " needs the role " + route.role().label()
                        + (p == null ? "" : "; '" + p.name() + "' has " + labels(p.roles()));
            } else if (route.object() != null && context.getVariables().get(route.object()) instanceof String object
                    && !p.mayAccess(object)) {
                refusal = "'" + p.name() + "' is not granted access to '" + JsonBody.abbreviate(object) + "'";
            } else {
                return new AuthorizationDecision(true);
            }
            context.getExchange().getAttributes().put(DENIED, refusal);
            return new AuthorizationDecision(false);
        }).defaultIfEmpty(new AuthorizationDecision(false));
    }

    private static ReactiveAuthorizationManager<AuthorizationContext> undeclared() {
        return (authentication, context) -> {
            var request = context.getExchange().getRequest();
            context.getExchange().getAttributes().put(DENIED, request.getMethod() + " " + request.getPath().value()
                    + " is not a declared route (ApiAccess)");
            return Mono.<AuthorizationResult>just(new AuthorizationDecision(false));
        };
    }

    static String labels(Set<Role> roles) {
        return roles.isEmpty() ? "no role" : String.join(", ", roles.stream().map(Role::label).sorted().toList());
    }

    /**
     * Audits every catalog change, drop and settings change (the non-GET routes that need {@code admin})
     * with its outcome, and gives each request of a route that reads ({@link ApiAccess.Route#reads}: {@code /v1/peek},
     * index lookups, introspection, {@code /v1/sql}) its caller's {@link PrincipalLimits#admission}, which the controller
     * asks for each read and each slow-path dataflow, and its {@link PrincipalLimits#planning}, which the
     * SQL engine asks for each statement it plans (429 over a limit).
     */
    @Bean
    WebFilter tandemAuditAndLimits(AuditLog audit, PrincipalLimits limits) {
        PathPatternParser parser = PathPatternParser.defaultInstance;
        List<AccessTable.Route> audited = ApiAccess.TABLE.routes().stream()
                .filter(r -> r.role() == Role.ADMIN && !r.method().equals("GET")).toList();
        List<PathPattern> auditedPatterns = audited.stream().map(r -> parser.parse(r.pattern())).toList();
        List<ApiAccess.Route> reading = ApiAccess.ROUTES.stream().filter(ApiAccess.Route::reads).toList();
        List<PathPattern> reads = reading.stream().map(r -> parser.parse(r.pattern())).toList();
        return new OrderedFilter((exchange, chain) -> {
            var request = exchange.getRequest();
            var path = request.getPath().pathWithinApplication();
            int match = -1;
            for (int i = 0; i < audited.size(); i++) {
                if (request.getMethod().name().equals(audited.get(i).method()) && auditedPatterns.get(i).matches(path)) {
                    match = i;
                    break;
                }
            }
            boolean read = false;
            for (int i = 0; i < reading.size() && !read; i++) {
                read = request.getMethod().name().equals(reading.get(i).method()) && reads.get(i).matches(path);
            }
            if (match < 0 && !read) {
                return chain.filter(exchange);
            }
            boolean change = match >= 0;
            return exchange.getPrincipal().map(p -> Optional.of(name(p))).defaultIfEmpty(Optional.empty()).flatMap(named -> {
                String who = named.orElse(ANONYMOUS);
                if (change) {
                    return chain.filter(exchange).doFinally(s -> {
                        HttpStatus status = exchange.getResponse().getStatusCode() == null ? HttpStatus.OK
                                : HttpStatus.resolve(exchange.getResponse().getStatusCode().value());
                        audit.record(who, address(exchange), request.getMethod().name(), path.value(),
                                s == reactor.core.publisher.SignalType.CANCEL ? "cancelled" : String.valueOf(status == null ? 0 : status.value()));
                    });
                }
                String limited = named.orElseGet(() -> anonymousAt(address(exchange)));
                return chain.filter(exchange).contextWrite(Context.of(ReadAdmission.class, limits.admission(limited),
                        dev.tandem.sql.PlanningAdmission.class, limits.planning(limited)));
            });
        });
    }

    /** Whom the per-principal limits count a caller without credentials against: its address. */
    static String anonymousAt(String address) {
        return ANONYMOUS + "@" + address;
    }

    static String name(java.security.Principal p) {
        AccessPrincipal a = TandemAuthentication.of(p);
        return a != null ? a.name() : p.getName();
    }

    static String address(ServerWebExchange exchange) {
        InetSocketAddress a = exchange.getRequest().getRemoteAddress();
        return a == null ? "unknown" : a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
    }

    /** A web filter running after Spring Security's (which runs at order -100), so the principal is known. */
    private record OrderedFilter(WebFilter filter) implements WebFilter, Ordered {
        @Override
        public Mono<Void> filter(ServerWebExchange exchange, org.springframework.web.server.WebFilterChain chain) {
            return filter.filter(exchange, chain);
        }

        @Override
        public int getOrder() {
            return 0;
        }
    }

    /** 401 and 403 as problem+json, each refused authentication audited. */
    private record SecurityProblems(AuditLog audit) {

        Mono<Void> unauthenticated(ServerWebExchange exchange, org.springframework.security.core.AuthenticationException e) {
            boolean presented = exchange.getRequest().getHeaders().containsHeader(HttpHeaders.AUTHORIZATION);
            String detail = presented ? "the bearer token was refused: " + e.getMessage()
                    : "this request needs credentials: send 'Authorization: Bearer <token>'";
            exchange.getResponse().getHeaders().set(HttpHeaders.WWW_AUTHENTICATE,
                    presented ? "Bearer error=\"invalid_token\"" : "Bearer");
            if (presented) {
                audit.record(ANONYMOUS, address(exchange), "authenticate", exchange.getRequest().getPath().value(), "refused: " + e.getMessage());
            }
            return ProblemExceptionHandler.write(exchange, Problem.of(HttpStatus.UNAUTHORIZED, "unauthorized", detail));
        }

        Mono<Void> denied(ServerWebExchange exchange, org.springframework.security.access.AccessDeniedException e) {
            String detail = exchange.getAttribute(DENIED) instanceof String d ? d : "access denied";
            return exchange.getPrincipal().map(p -> Optional.of(name(p))).defaultIfEmpty(Optional.empty()).flatMap(named -> {
                String who = named.orElse(ANONYMOUS);
                audit.record(who, address(exchange), exchange.getRequest().getMethod().name(), exchange.getRequest().getPath().value(),
                        "forbidden: " + detail);
                return ProblemExceptionHandler.write(exchange, Problem.of(HttpStatus.FORBIDDEN, "forbidden", detail));
            });
        }
    }
}
