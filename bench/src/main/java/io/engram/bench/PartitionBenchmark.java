package io.engram.bench;

import io.engram.model.partition.InvalidDocumentException;
import io.engram.model.partition.MarkdownPartitioner;
import io.engram.model.partition.PartitionConfig;
import io.engram.model.partition.PartitionedDocument;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.commonmark.ext.front.matter.YamlFrontMatterExtension;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.Node;
import org.commonmark.parser.Parser;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Partition throughput on the real agent documents, side by side with what a user would otherwise run: a bare
 * commonmark-java parse (same extensions, default inline parsing) of the same bytes; and the partition with the
 * learned rule reader on, beside the lexer alone. One operation processes
 * every document once; MB/s = ops/s × {@link #corpusBytes} / 10^6 (printed at setup).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class PartitionBenchmark {

    /** The real agent documents; the default is the repository's, for a run from the repository root. */
    @Param("data/agents-md")
    public String documents;

    private List<byte[]> corpus;
    private long corpusBytes;
    private Parser bareParser;
    private MarkdownPartitioner partitioner;
    private MarkdownPartitioner withRuleReader;

    @Setup
    public void load() throws IOException {
        if (!Files.isDirectory(Path.of(documents))) {
            throw new IllegalArgumentException("-p documents=DIR: no such directory: " + Path.of(documents).toAbsolutePath());
        }
        try (Stream<Path> files = Files.list(Path.of(documents))) {
            corpus = files.filter(p -> p.getFileName().toString().contains("__")).sorted()
                    .map(PartitionBenchmark::read).toList();
        }
        corpusBytes = corpus.stream().mapToLong(b -> b.length).sum();
        bareParser = Parser.builder()
                .extensions(List.of(YamlFrontMatterExtension.create(), TablesExtension.create()))
                .build();
        partitioner = new MarkdownPartitioner(PartitionConfig.defaults());
        withRuleReader = new MarkdownPartitioner(PartitionConfig.defaults().withRuleReader(true));
        System.out.printf("%n[corpus] %d documents, %d bytes per operation%n", corpus.size(), corpusBytes);
    }

    private static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Benchmark
    public void bareCommonmarkParse(Blackhole bh) {
        for (byte[] raw : corpus) {
            Node document = bareParser.parse(new String(raw, StandardCharsets.UTF_8));
            bh.consume(document);
        }
    }

    @Benchmark
    public void engramPartition(Blackhole bh) throws InvalidDocumentException {
        for (byte[] raw : corpus) {
            PartitionedDocument document = partitioner.partition(raw);
            bh.consume(document);
        }
    }

    /** The same partition with the learned rule reader on (partition.rule-reader=true): one model call per sentence. */
    @Benchmark
    public void engramPartitionWithRuleReader(Blackhole bh) throws InvalidDocumentException {
        for (byte[] raw : corpus) {
            PartitionedDocument document = withRuleReader.partition(raw);
            bh.consume(document);
        }
    }
}
