package io.engram.model.deontic;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The lexer's word lists, each a text file among the resources beside this class ({@code words/…}), one entry per
 * line; '#' lines and blank lines are skipped. Each is read once, when the reading that uses it is first loaded.
 * These are the open lists a tuning round extends (verbs, labels, subjects); the closed classes — the spellings of
 * a modal, a copula, a pronoun ("cannot", "can't", "cant") — are written where they are read.
 */
final class Words {

    private Words() {
    }

    /** The entries of {@code words/<name>.txt} as a set. */
    static WordSet set(String name) {
        return new WordSet(list(name));
    }

    /** The entries of {@code words/<name>.txt} in file order (where the first match wins). */
    static String[] list(String name) {
        return lines("words/" + name + ".txt");
    }

    /** The entries of a resource beside this class. */
    static String[] lines(String resource) {
        try (InputStream in = Words.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource + " beside " + Words.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                    .filter(line -> !line.isEmpty() && !line.startsWith("#")).toArray(String[]::new);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
