package dev.tandem.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** {@link Bytea}'s input and output forms and its order, against a naive model: the order of lower-case hex strings. */
class ByteaProperties {

    /** The model: two hex digits a byte, written by hand, so the string order is the unsigned byte order, a prefix first. */
    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            int v = x & 0xff;
            s.append("0123456789abcdef".charAt(v / 16)).append("0123456789abcdef".charAt(v % 16));
        }
        return s.toString();
    }

    @Property
    void ordersAsItsHexText(@ForAll @Size(max = 5) byte[] a, @ForAll @Size(max = 5) byte[] b) {
        int model = Integer.signum(hex(a).compareTo(hex(b)));
        assertThat(Integer.signum(new Bytea(a).compareTo(new Bytea(b)))).isEqualTo(model);
        Row ra = Row.of(new Bytea(a));
        Row rb = Row.of(new Bytea(b));
        assertThat(Integer.signum(ra.compareTo(rb))).isEqualTo(model);
        assertThat(ra.unpack()[0]).isEqualTo(new Bytea(a));
        assertThat(new Bytea(a).equals(new Bytea(b))).isEqualTo(model == 0);
    }

    @Property
    void readsBackItsOutput(@ForAll @Size(max = 8) byte[] a) {
        Bytea v = new Bytea(a);
        assertThat(v.hex()).isEqualTo("\\x" + hex(a));
        assertThat(Bytea.parse(v.hex())).isEqualTo(v);
        StringBuilder escaped = new StringBuilder();
        for (byte x : a) {
            int u = x & 0xff;
            escaped.append('\\').append((char) ('0' + u / 64)).append((char) ('0' + u / 8 % 8)).append((char) ('0' + u % 8));
        }
        assertThat(Bytea.parse(escaped.toString())).isEqualTo(v);
    }

    @Test
    void readsPostgresInputForms() {
        assertThat(Bytea.parse("\\x0A0b").hex()).isEqualTo("\\x0a0b");
        assertThat(Bytea.parse("\\x0a 0b\n").hex()).isEqualTo("\\x0a0b");
        assertThat(Bytea.parse("\\x").length()).isZero();
        assertThat(Bytea.parse("").length()).isZero();
        assertThat(Bytea.parse("ab\\000\\\\").hex()).isEqualTo("\\x6162005c");
        assertThat(Bytea.parse("é").hex()).isEqualTo("\\xc3a9");
        assertThatThrownBy(() -> Bytea.parse("\\x0a0")).hasMessage("invalid hexadecimal data: odd number of digits");
        assertThatThrownBy(() -> Bytea.parse("\\x0g")).hasMessage("invalid hexadecimal digit: \"g\"");
        assertThatThrownBy(() -> Bytea.parse("a\\b")).hasMessage("invalid input syntax for type bytea");
        assertThatThrownBy(() -> Bytea.parse("a\\400")).hasMessage("invalid input syntax for type bytea");
        assertThatThrownBy(() -> Bytea.parse("a\\")).hasMessage("invalid input syntax for type bytea");
    }
}
