package io.engram.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

final class Directories {

    private Directories() {
    }

    /** Removes a temporary tree; failures are ignored because the OS cleans temp space anyway. */
    static void deleteQuietly(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // best effort: a leftover temp directory is harmless, and a server still stopping may delete files
            // under the walk
        }
    }
}
