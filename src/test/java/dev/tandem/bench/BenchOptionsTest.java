package dev.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

    @Test
    void bothArmsByDefaultOrTheOneNamed() {
        assertThat(BenchOptions.parse("read-isolation").arms()).containsExactly("two_runtime", "solo");
        assertThat(BenchOptions.parse("subscribe-fanout", "--arm", "two_runtime").arms()).isEqualTo(List.of("two_runtime"));
        assertThat(BenchOptions.parse("maintenance-throughput", "--arm=solo").arms()).isEqualTo(List.of("solo"));
        assertThatThrownBy(() -> BenchOptions.parse("read-isolation", "--arm", "both"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--arm must be two_runtime or solo, got both");
    }

    @Test
    void aReportOfOneArmHasNoOtherArm() {
        BenchReport report = new BenchReport("read-isolation");
        report.arm(BenchReport.TWO_RUNTIME).put("p50_ms", 1.0);
        assertThat(report.measured(BenchReport.SOLO).isEmpty()).isTrue();
        assertThat(report.json().path("arms").has(BenchReport.SOLO)).isFalse();
        assertThat(report.measured(BenchReport.TWO_RUNTIME).path("p50_ms").asDouble()).isEqualTo(1.0);
    }
}
