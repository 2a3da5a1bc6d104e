package dev.tandem.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.Interval;
import dev.tandem.row.Timestamp;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * {@code to_char}, {@code age} and {@code format} on values whose answers were taken from PostgreSQL 15 (UTC, C locale);
 * {@code PostgresFormattingTest} compares many more with a running PostgreSQL.
 */
class FormatTemplatesTest {

    private static long micros(String t) {
        LocalDateTime d = LocalDateTime.parse(t);
        return d.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + d.getNano() / 1_000;
    }

    @Test
    void datetimeTemplatesAnswerAsPostgresDoes() {
        Timestamp t = new Timestamp(micros("2024-03-05T14:07:09.123456"));
        assertThat(FormatTemplates.datetime(t, "YYYY YY MM Mon MON Month MONTH DD D DDD Day DY Dy HH HH12 HH24 MI SS MS US AM PM am pm TZ"
                + " Q WW IW IYYY J FMDD DDth FMMonth"))
                .isEqualTo("2024 24 03 Mar MAR March     MARCH     05 3 065 Tuesday   TUE Tue 02 02 14 07 09 123 123456 PM PM pm pm  1 10 10"
                        + " 2024 2460375 5 05th March");
        assertThat(FormatTemplates.datetime(t, "FMFMDD")).isEqualTo("FM05");
        assertThat(FormatTemplates.datetime(t, "a\\\\D \"a\\\"D\"")).isEqualTo("a\\\\3 a\"D");
        assertThat(FormatTemplates.datetime(t, "")).isNull();
        assertThat(FormatTemplates.datetime(new Interval(14, 3, 14_706_500_000L), "YYYY MM DD HH24:MI:SS.MS"))
                .isEqualTo("0001 02 03 04:05:06.500");
        assertThatThrownBy(() -> FormatTemplates.datetime(new Interval(0, 1, 0), "Day"))
                .hasMessage("invalid format specification for an interval value");
    }

    @Test
    void numberTemplatesAnswerAsPostgresDoes() {
        assertThat(FormatTemplates.number(new BigDecimal("1234.5"), "FM999,999.00")).isEqualTo("1,234.50");
        assertThat(FormatTemplates.number(new BigDecimal("1234.5"), "000.00")).isEqualTo(" ###.##");
        assertThat(FormatTemplates.number(new BigDecimal("-0.5"), "FM990.00")).isEqualTo("-0.50");
        assertThat(FormatTemplates.number(123456L, "9.99EEEE")).isEqualTo(" 1.23e+05");
        assertThat(FormatTemplates.number(-12L, "999MI")).isEqualTo(" 12-");
    }

    @Test
    void whatIsNotComputedIsRefusedNotCopied() {
        assertThat(FormatTemplates.unsupportedDatetime("TMMonth", false)).contains("TM");
        assertThat(FormatTemplates.unsupportedDatetime("J", true)).contains("interval");
        assertThat(FormatTemplates.unsupportedDatetime("YYYY-MM-DD", false)).isNull();
        assertThat(FormatTemplates.unsupportedNumber("RN")).contains("RN");
        assertThat(FormatTemplates.unsupportedNumber("FM999.99")).isNull();
        assertThatThrownBy(() -> FormatTemplates.number(1L, "99V9")).hasMessageStartingWith("not supported: ");
    }

    @Test
    void ageAndFormatAnswerAsPostgresDoes() {
        assertThat(Intervals.age(micros("2024-03-31T00:00"), micros("2024-02-29T00:00"))).isEqualTo(new Interval(1, 2, 0));
        assertThat(Intervals.age(micros("2024-02-29T00:00"), micros("2024-03-31T00:00"))).isEqualTo(new Interval(-1, -2, 0));
        assertThat(Intervals.age(micros("2023-03-01T00:00"), micros("2023-01-31T12:00"))).isEqualTo(new Interval(1, 0, 43_200_000_000L));
        assertThat(TextFunctions.format("%-5s|%3s|%L|%I", new String[] {"ab", "x", "it's", "Foo"})).isEqualTo("ab   |  x|'it''s'|\"Foo\"");
        assertThat(TextFunctions.format("%2$s %s|%3$L", new String[] {"a", "b", null})).isEqualTo("b |NULL");
        assertThatThrownBy(() -> TextFunctions.format("%I", new String[] {null})).hasMessage("null values cannot be formatted as an SQL identifier");
    }
}
