package dev.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A {@code --jvm-arg} replaces the default of the same option; the GC log comes last. */
class ChildJvmTest {

    @Test
    void extraOptionsReplaceDefaultsOfTheSameOption() {
        assertThat(ChildJvm.key("-XX:+UseZGC")).isEqualTo(ChildJvm.key("-XX:+UseG1GC")).isEqualTo("gc");
        assertThat(ChildJvm.key("-XX:MaxGCPauseMillis=20")).isEqualTo(ChildJvm.key("-XX:MaxGCPauseMillis=200"));
        assertThat(ChildJvm.key("-XX:+AlwaysPreTouch")).isEqualTo(ChildJvm.key("-XX:-AlwaysPreTouch"));
        assertThat(ChildJvm.key("-Xmx2g")).isEqualTo(ChildJvm.key("-Xmx4096m")).isNotEqualTo(ChildJvm.key("-Xms2g"));

        List<String> options = ChildJvm.options(512, List.of("-XX:+UseSerialGC", "-Xms256m"), Path.of("/d/gc.log"));
        assertThat(options).startsWith("-Xmx512m").contains("-XX:+UseSerialGC", "-Xms256m");
        assertThat(options.stream().filter(o -> ChildJvm.key(o).equals("gc"))).containsExactly("-XX:+UseSerialGC");
        assertThat(options.getLast()).startsWith("-Xlog:gc,gc+phases:file=/d/gc.log:");
    }

    @Test
    void childrenRunWithTheServersOwnOptionsAndAHeapThatCanShrink() throws Exception {
        List<String> shipped = java.nio.file.Files.readAllLines(Path.of("src/main/resources/jvm.options")).stream()
                .filter(l -> !l.isBlank()).toList();
        assertThat(shipped).contains("-XX:+UseZGC").anyMatch(o -> o.startsWith("-XX:SoftMaxHeapSize="));
        assertThat(ChildJvm.DEFAULT_OPTIONS).isEqualTo(shipped);
        assertThat(java.nio.file.Files.readString(Path.of("bin/dev"))).contains("src/main/resources/jvm.options");

        List<String> large = ChildJvm.options(5280, List.of(), Path.of("/d/gc.log"));
        assertThat(large).contains("-Xmx5280m").containsAll(shipped).noneMatch(o -> o.startsWith("-Xms"));
        List<String> small = ChildJvm.options(1024, List.of(), Path.of("/d/gc.log"));
        assertThat(small).contains("-XX:SoftMaxHeapSize=1024m", "-XX:+UseZGC").doesNotContain("-XX:SoftMaxHeapSize=2g");
        assertThat(ChildJvm.megabytes("2g")).isEqualTo(2048);
        assertThat(ChildJvm.megabytes("512M")).isEqualTo(512);
        assertThat(ChildJvm.megabytes("1048576")).isEqualTo(1);
    }

    @Test
    void prometheusTextGivesAllocationYoungHeapAndCpu() {
        ChildResources.Metrics m = ChildResources.Metrics.parse("""
                # TYPE jvm_gc_memory_allocated_bytes_total counter
                jvm_gc_memory_allocated_bytes_total{application="tandem"} 2.73678336E8
                jvm_memory_used_bytes{application="tandem",area="heap",id="G1 Eden Space"} 3145728.0
                jvm_memory_used_bytes{application="tandem",area="heap",id="G1 Old Gen"} 3.2442968E7
                jvm_memory_used_bytes{application="tandem",area="heap",id="G1 Survivor Space"} 1000.0
                jvm_memory_used_bytes{application="tandem",area="nonheap",id="Metaspace"} 5.4763488E7
                process_cpu_time_ns_total{application="tandem"} 1.596E10
                tandem_maintenance_reserve_held_peeks_total{application="tandem"} 42.0
                """);
        assertThat(m.reserveHeldPeeks()).isEqualTo(42.0);
        assertThat(ChildResources.Metrics.parse("process_cpu_time_ns_total 1.0\n").reserveHeldPeeks()).as("no reserve").isNull();
        assertThat(m.allocatedBytes()).isEqualTo(2.73678336E8);
        assertThat(m.youngBytes()).isEqualTo(3145728.0);
        assertThat(m.heapBytes()).isEqualTo(3.2442968E7 + 1000.0);
        assertThat(m.cpuSeconds()).isEqualTo(15.96);
    }

    /** With bin/aot-cache's directory ({@code bin/dev bench} passes it), children start from its cache and extracted jar; without it, as before. */
    @Test
    void childrenStartFromTheAheadOfTimeCacheWhenOneIsGiven(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        String before = System.getProperty("tandem.bench.aot-dir");
        try {
            System.setProperty("tandem.bench.aot-dir", dir.toString());
            assertThat(ChildServer.aotDir()).as("no cache there yet").isNull();
            java.nio.file.Files.createDirectories(dir.resolve("app"));
            java.nio.file.Files.writeString(dir.resolve("app/tandem.jar"), "jar");
            java.nio.file.Files.writeString(dir.resolve("tandem.aot"), "cache");
            assertThat(ChildServer.launchTarget()).containsExactly("-XX:AOTCache=" + dir.toAbsolutePath().resolve("tandem.aot"), "-jar",
                    dir.toAbsolutePath().resolve("app/tandem.jar").toString());
            System.clearProperty("tandem.bench.aot-dir");
            assertThat(ChildServer.launchTarget()).doesNotContain("-XX:AOTCache=" + dir.toAbsolutePath().resolve("tandem.aot"));
        } finally {
            if (before == null) {
                System.clearProperty("tandem.bench.aot-dir");
            } else {
                System.setProperty("tandem.bench.aot-dir", before);
            }
        }
    }
}
