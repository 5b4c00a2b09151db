package io.engram.bench;

import io.engram.model.collapse.BigramDiversity;
import io.engram.model.collapse.CollapseAlerts;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.collapse.NormHash;
import io.engram.model.collapse.StoreShape;
import io.engram.model.retrieval.RecordType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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

/**
 * The collapse detector's store shape for a tenant of {@code records} learning records (texts of 12–40 words):
 * the cost of one incremental write, of closing a cycle (shape metrics + alert evaluation over a full window),
 * and — side by side — of a full rescan at cycle close (normHash of every text, bigram diversity over
 * an every-⌈N/2000⌉-th sample in key order, counts), which the original design budgeted at < 250 ms for 10k records.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class CollapseBenchmark {

    @Param({"10000", "100000"})
    public int records;

    private final List<String[]> store = new ArrayList<>(); // id, type, text, generation
    private StoreShape shape;
    private List<CycleMetrics> history;
    private CycleMetrics current;
    private String[] rewrites;
    private int next;

    private static final String[] WORDS = ("the user prefers tea coffee in morning evening deploys services on friday "
            + "never always check tests before merging billing invoices database migration rollback script team owner "
            + "reviews travel hotel lift vegetarian flight bag knee stairs lisbon kyoto budget report quarterly").split(" ");
    private static final RecordType[] TYPES = {RecordType.MEMORY, RecordType.LESSON, RecordType.KNOWLEDGE, RecordType.SUMMARY};

    @Setup
    public void fill() {
        Random random = new Random(3);
        shape = new StoreShape(2);
        for (int i = 0; i < records; i++) {
            String[] r = {"t/m" + i, TYPES[i % 4].label(), text(random), String.valueOf(random.nextInt(4))};
            store.add(r);
            shape.upsert(StoreShape.Entry.of(r[0], TYPES[i % 4], r[2], Integer.parseInt(r[3])));
        }
        rewrites = new String[1024];
        for (int i = 0; i < rewrites.length; i++) {
            rewrites[i] = text(random);
        }
        history = new ArrayList<>();
        for (int c = 0; c < 5; c++) {
            history.add(row("c" + c, 0.9));
        }
        current = row("c5", 0.7);
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            shape.writeTo(new DataOutputStream(bytes));
            System.err.printf("store shape of %d records: %d bytes serialized (%.0f per record)%n", records, bytes.size(),
                    bytes.size() / (double) records);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String text(Random random) {
        StringBuilder s = new StringBuilder();
        for (int w = 12 + random.nextInt(29); w > 0; w--) {
            s.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
        }
        return s.toString().trim();
    }

    private CycleMetrics row(String cycle, double recall) {
        return new CycleMetrics("t", cycle, Instant.EPOCH, "cycle_id", "cs", 40, recall, recall, recall, List.of(),
                records, Map.of("memory", (long) records), 0.99, 0.8, 10, 30, 0, 0, List.of());
    }

    /** One gateway write to an existing record: what the detector does per store change. */
    @Benchmark
    public StoreShape incrementalUpsert() {
        int i = next++ & 1023;
        shape.upsert(StoreShape.Entry.of("t/m" + (i * 97 % records), TYPES[i % 4], rewrites[i], i % 4));
        return shape;
    }

    /** Closing a cycle without canaries: the shape's metrics and the alert evaluation. */
    @Benchmark
    public List<CollapseAlerts.Alert> closeCycle() {
        StoreShape.Metrics m = shape.metrics();
        CycleMetrics row = new CycleMetrics("t", "c5", Instant.EPOCH, "cycle_id", "cs", 40, current.meanRecall(),
                current.meanNdcg(), current.meanMrr(), List.of(), m.total(), Map.of(), m.distinctContentRatio(),
                m.meanBigramDiversity(), m.overGenerationCount(), 30, 0, 0, List.of());
        return CollapseAlerts.evaluate(history, row, CollapseConfig.DEFAULT);
    }

    /**
     * Reading the whole shape from serialized state and writing it back: what a RocksDB state access costs. The
     * detector pays it once per active tenant and checkpoint (it keeps the shape on the heap in between); a
     * per-record {@code ValueState} read-modify-write would pay it on every write.
     */
    @Benchmark
    public StoreShape stateRoundTrip() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        shape.writeTo(new DataOutputStream(bytes));
        return StoreShape.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    }

    /** The alternative: rescan every record at cycle close, then evaluate. */
    @Benchmark
    public List<CollapseAlerts.Alert> fullRescanCycle() {
        Set<Long> hashes = new HashSet<>();
        Map<RecordType, Long> byType = new EnumMap<>(RecordType.class);
        long over = 0;
        for (String[] r : store) {
            hashes.add(NormHash.value(r[2]));
            byType.merge(RecordType.ofLabel(r[1]), 1L, Long::sum);
            over += Integer.parseInt(r[3]) > 2 ? 1 : 0;
        }
        List<String[]> sorted = new ArrayList<>(store);
        sorted.sort(Comparator.comparing(r -> r[0]));
        int step = (int) Math.ceil(sorted.size() / 2000.0);
        double sum = 0;
        int n = 0;
        for (int i = 0; i < sorted.size() && n < 2000; i += step, n++) {
            sum += BigramDiversity.of(sorted.get(i)[2]);
        }
        CycleMetrics row = new CycleMetrics("t", "c5", Instant.EPOCH, "cycle_id", "cs", 40, current.meanRecall(),
                current.meanNdcg(), current.meanMrr(), List.of(), store.size(), Map.of(),
                hashes.size() / (double) store.size(), sum / n, over, 30, 0, 0, List.of());
        return CollapseAlerts.evaluate(history, row, CollapseConfig.DEFAULT);
    }
}
