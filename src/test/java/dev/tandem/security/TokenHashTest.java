package dev.tandem.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.controller.ControllerException;
import dev.tandem.controller.ReadAdmission;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Token hashes, the token directory (rotation, lookups by secret and by name) and the token command. */
class TokenHashTest {

    final SecureRandom random = new SecureRandom();

    @Test
    void aHashMatchesItsSecretOnlyAndTwoHashesOfOneSecretDiffer() {
        String secret = TokenHash.newSecret(random);
        String a = TokenHash.hash(secret, random);
        String b = TokenHash.hash(secret, random);
        assertThat(a).isNotEqualTo(b).doesNotContain(secret).startsWith("sha256:");
        assertThat(TokenHash.matches(TokenHash.validate(a), secret)).isTrue();
        assertThat(TokenHash.matches(b, secret)).isTrue();
        assertThat(TokenHash.matches(a, secret + "x")).isFalse();
        assertThat(TokenHash.matches(a, TokenHash.newSecret(random))).isFalse();
        assertThatThrownBy(() -> TokenHash.hash("short", random)).hasMessageContaining("at least 16");
        assertThatThrownBy(() -> TokenHash.validate("plaintext-secret")).hasMessageContaining("sha256:<salt>:<digest>");
        assertThatThrownBy(() -> TokenHash.validate("sha256:AAAA:AAAA")).hasMessageContaining("32 bytes");
    }

    @Test
    void theDirectoryFindsTokensBySecretAndByNameAndForgetsRemovedOnes() {
        String s1 = TokenHash.newSecret(random);
        String s2 = TokenHash.newSecret(random);
        ApiToken ada = ApiToken.parse(0, "ada", TokenHash.hash(s1, random), "writer", null, null);
        ApiToken bob = ApiToken.parse(1, "bob", TokenHash.hash(s2, random), "reader", List.of("orders"), null);
        TokenDirectory d = new TokenDirectory(List.of(ada, bob));
        assertThat(d.authenticate(s1).orElseThrow().roles()).containsExactlyInAnyOrder(Role.READER, Role.WRITER);
        assertThat(d.authenticate(s2).orElseThrow().mayAccess("orders")).isTrue();
        assertThat(d.authenticate(s2).orElseThrow().mayAccess("secrets")).isFalse();
        assertThat(d.verify("ada", s1)).isPresent();
        assertThat(d.verify("bob", s1)).isEmpty();
        d.replace(List.of(bob));
        assertThat(d.authenticate(s1)).isEmpty();
        assertThat(d.authenticate(s2)).isPresent();
        assertThatThrownBy(() -> d.replace(List.of(bob, bob))).hasMessageContaining("two tokens are named 'bob'");
        assertThat(d.names()).containsExactly("bob");
        assertThatThrownBy(() -> ApiToken.parse(3, "x", TokenHash.hash(s1, random), "reader,root", null, null))
                .hasMessageContaining("tandem.security.tokens[3].roles").hasMessageContaining("unknown role 'root'");
        assertThatThrownBy(() -> ApiToken.parse(4, "x", s1, "reader", null, null)).hasMessageContaining("tandem.security.tokens[4].hash");
    }

    @Test
    void rolesIncludeTheRolesBelowThemButReplicaStandsAlone() {
        assertThat(Role.expand(Set.of(Role.ADMIN))).containsExactlyInAnyOrder(Role.ADMIN, Role.WRITER, Role.READER);
        assertThat(Role.expand(Set.of(Role.REPLICA))).containsExactly(Role.REPLICA);
    }

    @Test
    void theTokenCommandHashesStandardInputAndMakesNewTokensWhoseHashMatches() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String secret = "correct horse battery staple";
        int status = TokenCommand.run(new String[] {"hash"}, new ByteArrayInputStream((secret + "\n").getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), random);
        assertThat(status).isZero();
        assertThat(TokenHash.matches(TokenHash.validate(out.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow()), secret)).isTrue();

        out.reset();
        status = TokenCommand.run(new String[] {"new", "--name", "ada", "--roles", "reader,writer"}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), random);
        assertThat(status).isZero();
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        String fresh = lines.get(1);
        String hash = lines.stream().filter(l -> l.startsWith("tandem.security.tokens[0].hash=")).findFirst().orElseThrow().split("=", 2)[1];
        assertThat(TokenHash.matches(hash, fresh)).isTrue();
        assertThat(lines).contains("tandem.security.tokens[0].name=ada", "tandem.security.tokens[0].roles=reader,writer");

        status = TokenCommand.run(new String[] {"new", "--name", "x", "--roles", "root"}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), random);
        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown role 'root'");
    }

    @Test
    void aPrincipalAtItsLimitIsRefusedUntilAPermitCloses() {
        PrincipalLimits limits = new PrincipalLimits(2, 0, 0);
        PrincipalLimits.Permit a = limits.tryAcquire("ada", PrincipalLimits.Kind.PEEKS);
        PrincipalLimits.Permit b = limits.tryAcquire("ada", PrincipalLimits.Kind.PEEKS);
        assertThat(limits.tryAcquire("ada", PrincipalLimits.Kind.PEEKS)).isNull();
        assertThat(limits.tryAcquire("bob", PrincipalLimits.Kind.PEEKS)).isNotNull();
        a.close();
        a.close();
        assertThat(limits.held("ada", PrincipalLimits.Kind.PEEKS)).isEqualTo(1);
        assertThat(limits.tryAcquire("ada", PrincipalLimits.Kind.PEEKS)).isNotNull();
        assertThat(limits.tryAcquire("ada", PrincipalLimits.Kind.PEEKS)).isNull();
        b.close();
        for (int i = 0; i < 1000; i++) {
            assertThat(limits.tryAcquire("ada", PrincipalLimits.Kind.SUBSCRIPTIONS)).as("0 is unlimited").isNotNull();
        }
        assertThat(limits.held("ada", PrincipalLimits.Kind.SUBSCRIPTIONS)).as("and counts nothing").isZero();
    }

    @Test
    void aPrincipalsReadAdmissionTakesAReadPermitAndADataflowPermitAndNamesTheLimitWhenRefused() {
        List<String> refused = new java.util.ArrayList<>();
        PrincipalLimits limits = new PrincipalLimits(2, 1, 0, (who, kind) -> refused.add(who + "/" + kind));
        ReadAdmission ada = limits.admission("ada");
        Runnable read = ada.read();
        Runnable dataflow = ada.dataflow();
        assertThat(limits.held("ada", PrincipalLimits.Kind.PEEKS)).isEqualTo(1);
        assertThat(limits.held("ada", PrincipalLimits.Kind.DATAFLOWS)).isEqualTo(1);
        assertThatThrownBy(ada::dataflow).isInstanceOfSatisfying(ControllerException.class, e -> {
            assertThat(e.kind()).isEqualTo(ControllerException.Kind.LIMITED);
            assertThat(e.getMessage()).contains("'ada' has 1 slow-path reads", "tandem.security.limits.max-pending-dataflows");
        });
        Runnable second = ada.read();
        assertThatThrownBy(ada::read).isInstanceOfSatisfying(ControllerException.class,
                e -> assertThat(e.getMessage()).contains("'ada' has 2 reads in flight", "tandem.security.limits.max-concurrent-peeks"));
        assertThat(limits.admission("bob").dataflow()).as("another principal").isNotNull();
        assertThat(refused).containsExactly("ada/DATAFLOWS", "ada/PEEKS");
        dataflow.run();
        read.run();
        second.run();
        assertThat(limits.held("ada", PrincipalLimits.Kind.PEEKS)).isZero();
        assertThat(limits.held("ada", PrincipalLimits.Kind.DATAFLOWS)).isZero();
    }

    @Test
    void principalsHoldingNothingAreForgottenSoManySubjectsDoNotGrowTheLimitsMemory() {
        PrincipalLimits limits = new PrincipalLimits(1, 1, 1);
        for (int i = 0; i < 10_000; i++) {
            PrincipalLimits.Permit p = limits.tryAcquire("subject-" + i, PrincipalLimits.Kind.PEEKS);
            assertThat(p).isNotNull();
            p.close();
            p.close(); // a second close releases nothing more
        }
        assertThat(limits.holders()).isZero();
        PrincipalLimits.Permit held = limits.tryAcquire("ada", PrincipalLimits.Kind.SUBSCRIPTIONS);
        assertThat(limits.tryAcquire("ada", PrincipalLimits.Kind.SUBSCRIPTIONS)).as("at its limit").isNull();
        assertThat(limits.holders()).isEqualTo(1);
        held.close();
        assertThat(limits.holders()).isZero();
        assertThat(limits.tryAcquire("ada", PrincipalLimits.Kind.SUBSCRIPTIONS)).as("free again").isNotNull();
    }

    @Test
    void concurrentAcquiresNeverExceedTheLimitAndAllReleasesReturnToNothing() throws Exception {
        PrincipalLimits limits = new PrincipalLimits(3, 0, 0);
        java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < 4; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 20_000; i++) {
                        PrincipalLimits.Permit p = limits.tryAcquire("ada", PrincipalLimits.Kind.PEEKS);
                        if (p != null) {
                            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            inside.decrementAndGet();
                            p.close();
                        }
                    }
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(most.get()).isBetween(1, 3);
        assertThat(limits.held("ada", PrincipalLimits.Kind.PEEKS)).isZero();
        assertThat(limits.holders()).isZero();
    }
}
