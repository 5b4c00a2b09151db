package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The size bars of the code standards: no file in a src/main over 400 lines; the deontic lexer's entry class and
 * the memory service's at most 300, no store class over 350; no method over 40 lines in the lexer, the service or
 * the store. Each failure names the file (and method) and its size.
 */
class SourceSizesTest {

    private static final Path ROOT = ClusterCommand.root();
    private static final List<String> METHOD_BOUNDED = List.of("shared-model/src/main/java/io/engram/model/deontic",
            "service/src/main", "store/src/main");

    @Test
    void noMainSourceFileIsOver400Lines() {
        List<String> over = mainSources(ROOT).filter(f -> lines(f) > 400).map(f -> ROOT.relativize(f) + ": " + lines(f))
                .toList();
        assertThat(over).isEmpty();
        assertThat(mainSources(ROOT).count()).isGreaterThan(200); // the walk found the modules' sources
    }

    @Test
    void theLexerEntryAndTheServiceAreAtMost300LinesAndNoStoreClassIsOver350() {
        assertThat(lines(ROOT.resolve("shared-model/src/main/java/io/engram/model/deontic/DeonticLexer.java")))
                .isLessThanOrEqualTo(300);
        assertThat(lines(ROOT.resolve("service/src/main/java/io/engram/service/MemoryService.java")))
                .isLessThanOrEqualTo(300);
        List<String> over = mainSources(ROOT.resolve("store")).filter(f -> lines(f) > 350)
                .map(f -> ROOT.relativize(f) + ": " + lines(f)).toList();
        assertThat(over).isEmpty();
    }

    @Test
    void noMethodOfTheLexerTheServiceOrTheStoreIsOver40Lines() {
        List<String> over = METHOD_BOUNDED.stream().flatMap(d -> javaFiles(ROOT.resolve(d)))
                .flatMap(f -> JavaMethods.of(read(f)).stream().filter(m -> m.lines() > 40)
                        .map(m -> ROOT.relativize(f) + ":" + m.firstLine() + " " + m.name() + ": " + m.lines()))
                .toList();
        assertThat(over).isEmpty();
        assertThat(METHOD_BOUNDED.stream().flatMap(d -> javaFiles(ROOT.resolve(d)))
                .mapToInt(f -> JavaMethods.of(read(f)).size()).sum()).isGreaterThan(400);
    }

    @Test
    void methodsAreMeasuredFromTheirDeclarationToTheirClosingBrace() {
        String source = """
                @SuppressWarnings(value = "unused") class A {
                    private static final Runnable R = () -> { };
                    private final Object o = new Object() {
                        @Override
                        public String toString() {
                            return "}";
                        }
                    };

                    @Deprecated(since = "1")
                    A(int x) { // {
                        if (x > 0) {
                            System.out.println('{');
                        }
                    }

                    record B(int y) {
                        B {
                            assert y > 0;
                        }

                        int twice() { return 2 * y; }
                    }
                }
                """;
        assertThat(JavaMethods.of(source)).containsExactly(new JavaMethods.Method("toString", 5, 3),
                new JavaMethods.Method("A", 11, 5), new JavaMethods.Method("twice", 22, 1));
    }

    private static Stream<Path> mainSources(Path under) {
        return javaFiles(under).filter(f -> f.toString().contains("/src/main/"));
    }

    private static Stream<Path> javaFiles(Path under) {
        try (Stream<Path> files = Files.walk(under)) {
            return files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !f.toString().contains("/target/") && !f.toString().contains("/node_modules/"))
                    .toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long lines(Path file) {
        return read(file).lines().count();
    }
}
