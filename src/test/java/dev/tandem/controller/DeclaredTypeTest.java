package dev.tandem.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.expr.EvalError;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A declared column type: its name read back, its bounds, and how it fits a value (PostgreSQL's column rules). */
class DeclaredTypeTest {

    @Test
    void namesReadBackAsTheSameType() {
        for (DeclaredType t : List.of(DeclaredType.SMALLINT, DeclaredType.INTEGER, DeclaredType.varchar(1), DeclaredType.varchar(10_485_760),
                DeclaredType.numeric(5, 2), DeclaredType.numeric(3, -1), DeclaredType.numeric(3, 5), DeclaredType.numeric(1000, -1000),
                DeclaredType.varcharArray(0), DeclaredType.varcharArray(3), DeclaredType.INTEGER_ARRAY, DeclaredType.bpchar(4),
                DeclaredType.numericArray(5, 2), DeclaredType.numericArray(3, -1), DeclaredType.bpcharArray(2))) {
            assertThat(DeclaredType.parse(t.sqlName())).isEqualTo(t);
        }
        assertThatThrownBy(() -> DeclaredType.parse("text")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeclaredType.varchar(0)).hasMessage("length for type varchar must be at least 1");
        assertThatThrownBy(() -> DeclaredType.numeric(1001, 0)).hasMessage("NUMERIC precision 1001 must be between 1 and 1000");
        assertThatThrownBy(() -> DeclaredType.numeric(5, 1001)).hasMessage("NUMERIC scale 1001 must be between -1000 and 1000");
    }

    @Test
    void valuesAreFittedOrRefusedAsPostgresColumnsDo() {
        assertThat(DeclaredType.INTEGER.fit(2147483647L)).isEqualTo(2147483647L);
        assertThatThrownBy(() -> DeclaredType.INTEGER.fit(-2147483649L)).isInstanceOf(EvalError.class).hasMessage("integer out of range");
        assertThatThrownBy(() -> DeclaredType.SMALLINT.fit(32768L)).hasMessage("smallint out of range");
        // characters, not UTF-16 units; spaces past the length are cut, anything else is refused
        assertThat(DeclaredType.varchar(2).fit("😀é")).isEqualTo("😀é");
        assertThat(DeclaredType.varchar(2).fit("ab   ")).isEqualTo("ab");
        assertThatThrownBy(() -> DeclaredType.varchar(2).fit("ab c")).hasMessage("value too long for type character varying(2)");
        assertThat(DeclaredType.numeric(5, 2).fit(new BigDecimal("1.005"))).isEqualTo(new BigDecimal("1.01"));
        assertThat(DeclaredType.numeric(5, 2).fit(new BigDecimal("-999.994"))).isEqualTo(new BigDecimal("-999.99"));
        assertThatThrownBy(() -> DeclaredType.numeric(5, 2).fit(new BigDecimal("999.995"))).hasMessageStartingWith("numeric field overflow");
        assertThat(DeclaredType.numeric(3, -1).fit(new BigDecimal("1234"))).isEqualTo(new BigDecimal("1230"));
        assertThat(DeclaredType.numeric(3, 5).fit(new BigDecimal("0.001234"))).isEqualTo(new BigDecimal("0.00123"));
        // a numeric(p, s)[] fits each element as its numeric(p, s) column would; NULL elements stay
        assertThat(DeclaredType.numericArray(5, 2).fit(new dev.tandem.row.DatumArray(dev.tandem.row.DatumType.NUMERIC,
                java.util.Arrays.asList(new BigDecimal("1.005"), null, new BigDecimal("-2")))))
                .isEqualTo(new dev.tandem.row.DatumArray(dev.tandem.row.DatumType.NUMERIC, java.util.Arrays.asList(new BigDecimal("1.01"), null,
                        new BigDecimal("-2.00"))));
        assertThatThrownBy(() -> DeclaredType.numericArray(5, 2).fit(new dev.tandem.row.DatumArray(dev.tandem.row.DatumType.NUMERIC,
                List.of(new BigDecimal("1"), new BigDecimal("1000"))))).hasMessageStartingWith("numeric field overflow");
        assertThat(DeclaredType.numericArray(5, 2).typmod()).isEqualTo(DeclaredType.numeric(5, 2).typmod());
        assertThat(DeclaredType.numericArray(5, 2).sqlName()).isEqualTo("numeric(5,2)[]");
        assertThatThrownBy(() -> DeclaredType.numeric(3, 5).fit(new BigDecimal("0.01"))).hasMessageContaining("less than 10^-2");
        assertThat(DeclaredType.numeric(5, 2).typmod()).isEqualTo((5 << 16 | 2) + 4);
        assertThat(DeclaredType.varchar(3).typmod()).isEqualTo(7);
    }
}
