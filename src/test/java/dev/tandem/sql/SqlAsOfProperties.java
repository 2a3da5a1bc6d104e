package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The backward scan for a trailing {@code AS OF} finds what the regular expression it replaces finds (a naive model), on texts made of its pieces. */
class SqlAsOfProperties {

    /** The model: a trailing AS OF as a pattern (quadratic in a run of white space, so only for short texts). */
    static final Pattern MODEL = Pattern.compile("(?is)\\s+AS\\s+OF\\s+(\\$\\d+|\\d+)\\s*;?\\s*$");

    @Property(tries = 3000)
    void theScanFindsWhatThePatternFinds(@ForAll("texts") String text) {
        Matcher m = MODEL.matcher(text);
        SqlAsOf found = SqlAsOf.find(text);
        if (m.find()) {
            assertThat(found).as("'%s'", text).isNotNull();
            assertThat(found.start()).as("'%s'", text).isEqualTo(m.start());
            assertThat(found.value()).as("'%s'", text).isEqualTo(m.group(1));
        } else {
            assertThat(found).as("'%s'", text).isNull();
        }
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.of(List.of(" ", "  ", "\t", "\n", "\r\n", "\f", "\u000B", "\u00A0", "as", "AS", "aS", "of", "OF", "oF", "$", "1",
                        "42", ";", "x", "sa", "fo", "select t", "Ä")).list().ofMaxSize(12)
                .map(pieces -> String.join("", pieces));
    }
}
