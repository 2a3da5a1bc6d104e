package dev.tandem;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Each package's {@code package-info.java} says which of Tandem's packages it may import; its sources
 * name no other (imports and fully qualified names alike). A subpackage counts as its parent when others
 * name it, and a package may always name its own subpackages.
 */
class PackageImportsTest {

    static final Path ROOT = Path.of("src/main/java/dev/tandem");
    static final Pattern MAY_IMPORT = Pattern.compile("May import: ([^.]*)\\.");
    static final Pattern REFERENCE = Pattern.compile("dev\\.tandem\\.([a-z]+)((?:\\.[a-z]+)*)\\.[A-Z]");

    @Test
    void everyPackageNamesOnlyWhatItsPackageInfoAllows() throws IOException {
        List<String> violations = new ArrayList<>();
        List<Path> infos;
        try (Stream<Path> s = Files.walk(ROOT)) {
            infos = s.filter(p -> p.getFileName().toString().equals("package-info.java")).sorted().toList();
        }
        assertThat(infos).as("every package has a package-info.java").hasSize(packageCount());
        for (Path info : infos) {
            Path dir = info.getParent();
            String pkg = ROOT.relativize(dir).toString().replace('/', '.');
            Matcher m = MAY_IMPORT.matcher(Files.readString(info));
            assertThat(m.find()).as(info + " says what it may import").isTrue();
            String allowed = m.group(1).trim();
            if (allowed.startsWith("every package")) {
                continue;
            }
            Set<String> may = new TreeSet<>();
            if (!allowed.startsWith("nothing")) {
                for (String p : allowed.split(",\\s*")) {
                    may.add(p.trim());
                }
            }
            String top = pkg.contains(".") ? pkg.substring(0, pkg.indexOf('.')) : pkg;
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    Matcher r = REFERENCE.matcher(Files.readString(f));
                    while (r.find()) {
                        String named = r.group(1);
                        String sub = r.group(2);
                        boolean own = (named + sub).equals(pkg) || (named + sub).startsWith(pkg + ".") || (named.equals(top) && sub.isEmpty())
                                || named.equals(top) && !pkg.contains(".") && !sub.isEmpty();
                        if (!own && !may.contains(named)) {
                            violations.add(ROOT.relativize(f) + " names dev.tandem." + named + sub);
                        }
                    }
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    private static int packageCount() throws IOException {
        try (Stream<Path> s = Files.walk(ROOT)) {
            return (int) s.filter(Files::isDirectory).filter(d -> !d.equals(ROOT)).filter(d -> {
                try (Stream<Path> f = Files.list(d)) {
                    return f.anyMatch(p -> p.toString().endsWith(".java"));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }).count();
        }
    }
}
