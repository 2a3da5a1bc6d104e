package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JIT compiler's threads take the nice value asked for; no other thread of the process does. */
class CompilerThreadNiceTest {

    /** The nice values of this process's JIT compiler threads ({@code compilers}) or of its other threads. */
    private static List<Integer> nices(boolean compilers) throws IOException {
        List<Integer> out = new ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue;
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                boolean compiler = name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
                if (compiler == compilers) {
                    out.add(Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]));
                }
            }
        }
        return out;
    }

    @Test
    void compilerThreadsAndOnlyThemAreLowered() throws IOException {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
        int before = ThreadNice.current().orElse(0);
        int lowered = ThreadNice.lowerCompilerThreads(before + 1);
        List<Integer> compilers = nices(true);
        assertThat(compilers).as("compiler threads found").isNotEmpty();
        assertThat(lowered).isEqualTo(compilers.size());
        assertThat(compilers).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(before + 1));
        assertThat(ThreadNice.current()).as("the calling thread keeps its priority").contains(before);
        assertThat(ThreadNice.lowerCompilerThreads(0)).as("0 leaves them alone").isZero();
    }
}
