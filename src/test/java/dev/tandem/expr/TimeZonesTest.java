package dev.tandem.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.DatumType;
import dev.tandem.row.Interval;
import dev.tandem.row.Timestamp;
import dev.tandem.row.TimestampTz;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimeZonesTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static long micros(String instant) {
        return Instant.parse(instant).getEpochSecond() * 1_000_000L;
    }

    @Test
    void readsSettingsAsPostgresDoes() {
        assertThat(TimeZones.setting("europe/berlin")).isEqualTo(new TimeZones.Zone(BERLIN, "Europe/Berlin"));
        assertThat(TimeZones.setting("utc")).isEqualTo(TimeZones.Zone.UTC);
        assertThat(TimeZones.setting("Etc/UTC").id()).isEqualTo(ZoneOffset.UTC);
        assertThat(TimeZones.setting("Etc/UTC").name()).isEqualTo("Etc/UTC");
        // POSIX: the offset counts west of Greenwich
        assertThat(TimeZones.setting("+02:00").id().getRules().getOffset(Instant.EPOCH)).isEqualTo(ZoneOffset.ofHours(-2));
        assertThat(TimeZones.abbreviation(0, TimeZones.setting("+02:00").id())).isEmpty();
        assertThat(TimeZones.atTimeZone("+05").getRules().getOffset(Instant.EPOCH)).isEqualTo(ZoneOffset.ofHours(-5));
        assertThat(TimeZones.setting("UTC+3").id().getRules().getOffset(Instant.EPOCH)).isEqualTo(ZoneOffset.ofHours(-3));
        assertThat(TimeZones.abbreviation(0, TimeZones.setting("UTC+3").id())).isEqualTo("UTC");
        assertThat(TimeZones.setting("GMT-05:30").id().getRules().getOffset(Instant.EPOCH)).isEqualTo(ZoneOffset.ofHoursMinutes(5, 30));
        assertThat(TimeZones.abbreviation(0, TimeZones.setting("<+05>-05").id())).isEqualTo("+05");
        assertThatThrownBy(() -> TimeZones.setting("FOO3")).hasMessageContaining("not supported");
        assertThat(TimeZones.setting("<+05>-05").id()).isEqualTo(ZoneOffset.ofHours(5));
        // a number is hours east
        assertThat(TimeZones.setting("5.5")).isEqualTo(new TimeZones.Zone(ZoneOffset.ofHoursMinutes(5, 30), "<+05:30>-05:30"));
        assertThat(TimeZones.hours(new java.math.BigDecimal("-5")).name()).isEqualTo("<-05>+05");
        assertThatThrownBy(() -> TimeZones.setting("Nowhere/Land")).isInstanceOf(EvalError.class)
                .hasMessage("invalid value for parameter \"TimeZone\": \"Nowhere/Land\"");
        assertThatThrownBy(() -> TimeZones.atTimeZone("Nowhere/Land")).hasMessage("time zone \"Nowhere/Land\" not recognized");
    }

    @Test
    void convertsLocalTimesAsPostgresDoes() {
        // 2024-03-31 02:30 does not exist in Berlin: read with the offset before the change (+01)
        long gap = micros("2024-03-31T02:30:00Z");
        assertThat(TimeZones.instant(gap, BERLIN)).isEqualTo(micros("2024-03-31T01:30:00Z"));
        // 2024-10-27 02:30 happens twice: read with the offset after the change (+01)
        long twice = micros("2024-10-27T02:30:00Z");
        assertThat(TimeZones.instant(twice, BERLIN)).isEqualTo(micros("2024-10-27T01:30:00Z"));
        assertThat(TimeZones.local(micros("2024-07-01T12:00:00Z"), BERLIN)).isEqualTo(micros("2024-07-01T14:00:00Z"));
        assertThat(Datetimes.text(new TimestampTz(micros("2024-07-01T12:00:00Z") + 500_000), ZoneId.of("Asia/Kolkata")))
                .isEqualTo("2024-07-01 17:30:00.5+05:30");
        assertThat(Datetimes.text(new TimestampTz(micros("2024-01-01T12:00:00Z")), ZoneId.of("America/St_Johns"))).isEqualTo("2024-01-01 08:30:00-03:30");
        assertThat(Datetimes.parseTimestampTz("2024-07-01 14:00", BERLIN).micros()).isEqualTo(micros("2024-07-01T12:00:00Z"));
        assertThat(Datetimes.parseTimestampTz("2024-07-01 14:00+00", BERLIN).micros()).isEqualTo(micros("2024-07-01T14:00:00Z"));
    }

    @Test
    void addsDaysToTheLocalTime() {
        // a day across the spring-forward change is 23 hours
        long before = micros("2024-03-30T11:00:00Z");
        assertThat(Intervals.plus(before, new Interval(0, 1, 0), BERLIN)).isEqualTo(micros("2024-03-31T10:00:00Z"));
        assertThat(Intervals.plus(before, new Interval(0, 0, 86_400_000_000L), BERLIN)).isEqualTo(micros("2024-03-31T11:00:00Z"));
        assertThat(Datetimes.truncate("day", micros("2024-03-31T12:00:00Z"), "timestamp with time zone", BERLIN))
                .isEqualTo(micros("2024-03-30T23:00:00Z"));
        assertThat(Datetimes.extract("hour", new TimestampTz(micros("2024-03-31T12:00:00Z")), BERLIN)).isEqualByComparingTo("14");
        assertThat(Datetimes.extract("timezone", new TimestampTz(micros("2024-03-31T12:00:00Z")), ZoneId.of("America/St_Johns")))
                .isEqualByComparingTo("-9000");
    }

    @Test
    void bindsOnlyWhatDependsOnTheZone() {
        List<DatumType> in = List.of(DatumType.TIMESTAMPTZ, DatumType.TIMESTAMP, DatumType.INT64);
        Expr plain = Expr.call(Func.ADD, Expr.col(2), Expr.lit(1L, DatumType.INT64));
        assertThat(ZoneBinding.bind(plain, in, "Europe/Berlin")).isSameAs(plain);
        Expr text = Expr.cast(Expr.col(0), DatumType.STRING);
        Expr bound = ZoneBinding.bind(text, in, "Europe/Berlin");
        assertThat(bound).isEqualTo(new Expr.Call(Func.CAST, List.of(Expr.col(0), Expr.lit("Europe/Berlin", DatumType.STRING)), DatumType.STRING));
        assertThat(ZoneBinding.bind(bound, in, "Europe/Berlin")).isEqualTo(bound);
        Object[] row = {new TimestampTz(micros("2024-07-01T12:00:00Z")), new Timestamp(0), 1L};
        assertThat(ExprEval.eval(bound, row)).isEqualTo("2024-07-01 14:00:00+02");
        Expr plusDay = ZoneBinding.bind(Expr.call(Func.ADD, Expr.col(0), Expr.lit(new Interval(0, 1, 0), DatumType.INTERVAL)), in, "Europe/Berlin");
        assertThat(((Expr.Call) plusDay).func()).isEqualTo(Func.TZ_PLUS);
        assertThat(ExprTyper.typeOf(plusDay, in, "")).isEqualTo(DatumType.TIMESTAMPTZ);
    }
}
