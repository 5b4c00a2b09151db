package io.engram.bench.footprint;

import io.engram.launcher.LocomoData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Real texts to index and held-out texts to query with: the units of a source (LoCoMo's turns per conversation, or
 * the paragraphs of each Markdown file under the repository's {@code data/}), every {@code units / queries}-th unit held out
 * as a query, the rest indexed as windows of 1, 2, 3 … consecutive units of one group (as the pipeline indexes turns
 * and windows of turns) until there are {@code documents} texts.
 */
record FootprintCorpus(List<String> documents, List<String> queries) {

    static FootprintCorpus of(List<List<String>> groups, int documents, int queries) {
        int units = groups.stream().mapToInt(List::size).sum();
        if (units < 2 * queries) {
            throw new IllegalArgumentException("the source holds " + units + " texts: too few to hold out " + queries + " queries");
        }
        int stride = units / queries;
        List<String> held = new ArrayList<>();
        List<List<String>> kept = new ArrayList<>();
        int seen = 0;
        for (List<String> group : groups) {
            List<String> rest = new ArrayList<>();
            for (String unit : group) {
                if (seen++ % stride == 0 && held.size() < queries) {
                    held.add(unit);
                } else {
                    rest.add(unit);
                }
            }
            kept.add(rest);
        }
        List<String> texts = new ArrayList<>();
        int longest = kept.stream().mapToInt(List::size).max().orElse(0);
        for (int width = 1; width <= longest && texts.size() < documents; width++) {
            for (List<String> group : kept) {
                for (int start = 0; start + width <= group.size() && texts.size() < documents; start++) {
                    texts.add(String.join("\n", group.subList(start, start + width)));
                }
            }
        }
        return new FootprintCorpus(texts, held);
    }

    /** LoCoMo's turns, "speaker: text", one group per conversation. */
    static List<List<String>> locomoTurns(Path file) throws IOException {
        List<List<String>> groups = new ArrayList<>();
        for (LocomoData.Conversation conversation : LocomoData.read(file)) {
            groups.add(conversation.turns().stream().map(t -> t.speaker() + ": " + t.text()).toList());
        }
        return groups;
    }

    /** The non-blank paragraphs of each Markdown file under {@code dir}, one group per file. */
    static List<List<String>> paragraphs(Path dir) throws IOException {
        List<List<String>> groups = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".md") || f.toString().endsWith(".mdc")).sorted().toList()) {
                groups.add(Stream.of(read(file).split("\\n\\s*\\n")).map(String::strip).filter(p -> !p.isEmpty()).toList());
            }
        }
        return groups;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
