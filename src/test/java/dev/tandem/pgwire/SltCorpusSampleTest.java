package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fixed sample of SQLite's sqllogictest corpus over the wire protocol ({@link SltCorpusRunner}; the whole
 * corpus is {@code bin/dev slt}): no record may be answered wrong or end in an internal error, and at least
 * as many records as when the sample was chosen must pass.
 */
class SltCorpusSampleTest {

    /** The sample's files, each run up to its first {@link #QUERIES} queries (with the statements before them). */
    private static final List<String> FILES = List.of(
            "test/evidence/in2.test",
            "test/evidence/slt_lang_createview.test",
            "test/evidence/slt_lang_droptable.test",
            "test/index/between/10/slt_good_0.test",
            "test/index/delete/10/slt_good_0.test",
            "test/index/in/10/slt_good_0.test",
            "test/index/orderby/10/slt_good_0.test",
            "test/index/random/10/slt_good_0.test",
            "test/index/view/10/slt_good_2.test",
            "test/random/aggregates/slt_good_0.test",
            "test/random/expr/slt_good_0.test",
            "test/random/select/slt_good_0.test",
            "test/select1.test");

    private static final int QUERIES = 30;

    /** Passed records when the sample was chosen; a change that makes fewer pass fails here. */
    private static final int PASSED_FLOOR = 635;

    @Test
    void theSampleHasNoWrongAnswerAndNoInternalError(@TempDir Path dir) throws IOException {
        SltCorpusRunner runner = new SltCorpusRunner(20, QUERIES);
        SltCorpusRunner.Counts total = new SltCorpusRunner.Counts();
        for (String file : FILES) {
            assertThat(SltCorpusRunner.corpusFiles("^" + java.util.regex.Pattern.quote(file) + "$")).as(file).containsExactly(file);
            SltCorpusRunner.Counts c = runner.runFile(file, dir);
            System.out.println(file + ": " + c);
            total.addAll(c);
        }
        System.out.println("sample total: " + total + "; refused by SQLSTATE: " + total.refusedBySqlState());
        assertThat(runner.notPassed()).as("wrong answers and internal errors")
                .filteredOn(r -> r.outcome() == SltCorpusRunner.Outcome.WRONG || r.outcome() == SltCorpusRunner.Outcome.ERROR)
                .isEmpty();
        assertThat(total.get(SltCorpusRunner.Outcome.PASSED)).isGreaterThanOrEqualTo(PASSED_FLOOR);
    }
}
