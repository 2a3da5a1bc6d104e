package dev.tandem.storage;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A small tmpfs the test mounts (it must run as root, as CI does), to fill up and free again. Where it
 * cannot be mounted the test is skipped with a loud message on stderr.
 */
public final class SmallFileSystem implements AutoCloseable {

    public final Path root;
    private final Path filler;

    private SmallFileSystem(Path root) {
        this.root = root;
        this.filler = root.resolve("filler");
    }

    /** Mounts a tmpfs of {@code size} (e.g. {@code "8m"}) at {@code dir}, or skips the test. */
    public static SmallFileSystem mountOrSkip(Path dir, String size) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        boolean root = "root".equals(System.getProperty("user.name"));
        int rc = root ? run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString()) : -1;
        if (rc != 0) {
            String why = "SKIPPED: the disk-full test needs to mount a small tmpfs (run as root, as CI does); "
                    + (root ? "mount failed with exit code " + rc : "not running as root");
            System.err.println("*".repeat(100) + "\n" + why + "\n" + "*".repeat(100));
            Assumptions.abort(why);
        }
        return new SmallFileSystem(dir);
    }

    /** Fills the file system until a write fails for want of space. */
    public void fill() throws IOException {
        byte[] chunk = new byte[64 << 10];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(chunk);
            }
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("No space left")) {
                throw e;
            }
        }
    }

    /** Frees what {@link #fill} took. */
    public void free() throws IOException {
        Files.deleteIfExists(filler);
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (run("umount", root.toString()) != 0) {
            run("umount", "-l", root.toString());
        }
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().transferTo(OutputStream.nullOutputStream());
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
