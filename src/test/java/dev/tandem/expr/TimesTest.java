package dev.tandem.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.Interval;
import dev.tandem.row.TimeOfDay;
import dev.tandem.row.Timestamp;
import java.math.BigDecimal;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class TimesTest {

    private static final long HOUR = 3_600_000_000L;

    @Test
    void readsAndWritesAsPostgresDoes() {
        assertThat(Times.parse("12:34:56.789").toString()).isEqualTo("12:34:56.789");
        assertThat(Times.parse("12:34").toString()).isEqualTo("12:34:00");
        assertThat(Times.parse(" 9:5:3 ").toString()).isEqualTo("09:05:03");
        assertThat(Times.parse("24:00").toString()).isEqualTo("24:00:00");
        assertThat(Times.parse("23:59:60").toString()).isEqualTo("24:00:00");
        assertThat(Times.parse("2024-01-02 03:04:05.000001").toString()).isEqualTo("03:04:05.000001");
        assertThat(Times.parse("00:00:00.0000005").micros()).isZero();
        assertThat(TimeOfDay.parse("12:34:56.5")).isEqualTo(Times.parse("12:34:56.5"));
    }

    @Test
    void refusesWhatPostgresRefusesAndWhatItReadsOtherwise() {
        assertThatThrownBy(() -> Times.parse("x")).hasMessageStartingWith("invalid input syntax for type time");
        assertThatThrownBy(() -> Times.parse("25:00")).hasMessageStartingWith("date/time field value out of range");
        assertThatThrownBy(() -> Times.parse("12:60")).hasMessageStartingWith("date/time field value out of range");
        assertThatThrownBy(() -> Times.parse("24:00:00.000001")).hasMessageStartingWith("date/time field value out of range");
        assertThatThrownBy(() -> Times.parse("04:05 PM")).hasMessageStartingWith("not supported");
        assertThatThrownBy(() -> Times.parse("040506")).hasMessageStartingWith("not supported");
        assertThatThrownBy(() -> Times.parse("12:00+02")).hasMessageStartingWith("not supported");
    }

    @Test
    void computesAsPostgresDoes() {
        TimeOfDay t = Times.parse("23:30");
        assertThat(Times.arith(Func.ADD, t, new Interval(1, 1, HOUR))).isEqualTo(Times.parse("00:30"));
        assertThat(Times.arith(Func.SUB, Times.parse("00:30"), new Interval(0, 0, HOUR))).isEqualTo(Times.parse("23:30"));
        assertThat(Times.arith(Func.ADD, Times.parse("24:00"), new Interval(0, 0, 0))).isEqualTo(Times.parse("00:00"));
        assertThat(Times.arith(Func.SUB, Times.parse("01:00"), t)).isEqualTo(new Interval(0, 0, -22 * HOUR - HOUR / 2));
        assertThat(Times.arith(Func.ADD, LocalDate.of(2024, 1, 31), Times.parse("24:00")))
                .isEqualTo(new Timestamp(Datetimes.startOfDay(LocalDate.of(2024, 2, 1))));
        assertThat(Times.of(-1).toString()).isEqualTo("23:59:59.999999");
    }

    @Test
    void extractsFieldsAsPostgresDoes() {
        TimeOfDay t = Times.parse("12:34:56.789");
        assertThat(Times.extract("hour", t)).isEqualTo(BigDecimal.valueOf(12));
        assertThat(Times.extract("MINUTE", t)).isEqualTo(BigDecimal.valueOf(34));
        assertThat(Times.extract("second", t)).isEqualTo(new BigDecimal("56.789000"));
        assertThat(Times.extract("milliseconds", t)).isEqualTo(new BigDecimal("56789.000"));
        assertThat(Times.extract("microsecond", t)).isEqualTo(BigDecimal.valueOf(56_789_000));
        assertThat(Times.extract("epoch", t)).isEqualTo(new BigDecimal("45296.789000"));
        assertThat(Times.extract("hour", Times.parse("24:00"))).isEqualTo(BigDecimal.valueOf(24));
        assertThatThrownBy(() -> Times.extract("day", t)).hasMessageContaining("not supported for type time without time zone");
        assertThatThrownBy(() -> Times.extract("fortnight", t)).hasMessageContaining("not recognized for type time without time zone");
    }
}
