package dev.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeliveryLogTest {

    @Test
    void recordsTheWindowsWritesAndCountsWhatDidNotFit() {
        SubscribeFanoutScenario.DeliveryLog log = new SubscribeFanoutScenario.DeliveryLog(100, 3, 2);
        log.acked(99, 5);
        log.delivered(99, 6);
        log.acked(100, 10);
        log.acked(102, 30);
        log.acked(103, 40);
        log.delivered(100, 11);
        log.delivered(102, 35);
        log.delivered(100, 12);

        assertThat(log.writes()).isEqualTo(3);
        assertThat(log.ackAt(99)).isZero();
        assertThat(log.ackAt(100)).isEqualTo(10);
        assertThat(log.ackAt(101)).isZero();
        assertThat(log.ackAt(102)).isEqualTo(30);
        assertThat(log.ackAt(103)).isZero();
        assertThat(log.deliveries()).isEqualTo(3);
        assertThat(new long[] {log.deliveredSeq(0), log.deliveredSeq(1), log.deliveredSeq(2)}).containsExactly(100, 102, 100);
        assertThat(new long[] {log.deliveredAt(0), log.deliveredAt(1), log.deliveredAt(2)}).containsExactly(11, 35, 12);
        assertThat(log.unrecorded()).isEqualTo(1);

        for (int i = 0; i < 4; i++) {
            log.delivered(101, 20 + i);
        }
        assertThat(log.deliveries()).isEqualTo(6);
        assertThat(log.unrecorded()).isEqualTo(2);
    }
}
