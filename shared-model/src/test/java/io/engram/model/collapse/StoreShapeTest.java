package io.engram.model.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.retrieval.RecordType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StoreShapeTest {

    private static final RecordType[] TYPES = RecordType.values();
    private static final RecordType[] LEARNING = StoreShape.LEARNING_TYPES.toArray(new RecordType[0]);

    @Test
    void emptyStoreHasRatioOneAndNoRecords() {
        StoreShape.Metrics m = new StoreShape(2).metrics();
        assertThat(m.total()).isZero();
        assertThat(m.distinctContentRatio()).isEqualTo(1.0);
        assertThat(m.meanBigramDiversity()).isEqualTo(1.0);
    }

    @Test
    void countsLearningTypesOnlyAndHashesNormalisedText() {
        StoreShape shape = new StoreShape(2);
        shape.upsert(StoreShape.Entry.of("m1", RecordType.MEMORY, "Likes green tea", 0));
        shape.upsert(StoreShape.Entry.of("m2", RecordType.MEMORY, "likes  GREEN tea ", 1));
        shape.upsert(StoreShape.Entry.of("l1", RecordType.LESSON, "Run the tests before pushing", 3));
        shape.upsert(StoreShape.Entry.of("t1", RecordType.TURN, "a turn is not a learning record", 0));
        shape.upsert(StoreShape.Entry.of("i1", RecordType.INVARIANT, "nor is a rule", 0));
        StoreShape.Metrics m = shape.metrics();
        assertThat(m.total()).isEqualTo(3);
        assertThat(m.byType()).containsExactlyInAnyOrderEntriesOf(Map.of(RecordType.MEMORY, 2L, RecordType.LESSON, 1L));
        assertThat(m.distinctContentRatio()).isEqualTo(2 / 3.0);
        assertThat(m.overGenerationCount()).isEqualTo(1);

        shape.upsert(StoreShape.Entry.of("l1", RecordType.LESSON, "Run the tests before pushing", 1));
        shape.delete("m2");
        m = shape.metrics();
        assertThat(m.total()).isEqualTo(2);
        assertThat(m.distinctContentRatio()).isEqualTo(1.0);
        assertThat(m.overGenerationCount()).isZero();
        assertThat(shape.delete("m2")).isFalse();
    }

    /** 10,000 random upserts and deletes over 6,000 ids: every aggregate equals a from-scratch recomputation. */
    @Test
    void incrementalShapeEqualsRecomputation() throws IOException {
        Random random = new Random(42);
        StoreShape shape = new StoreShape(2);
        Map<String, StoreShape.Entry> truth = new HashMap<>();
        String[] vocabulary = "alpha beta gamma delta the user likes tea and coffee in the morning".split(" ");
        for (int op = 0; op < 10_000; op++) {
            String id = "r" + random.nextInt(6_000);
            if (random.nextInt(4) == 0) {
                shape.delete(id);
                truth.remove(id);
            } else {
                StringBuilder text = new StringBuilder();
                for (int w = random.nextInt(6); w >= 0; w--) {
                    text.append(vocabulary[random.nextInt(vocabulary.length)]).append(random.nextBoolean() ? " " : "  ");
                }
                RecordType type = random.nextInt(5) == 0 ? TYPES[random.nextInt(TYPES.length)] : LEARNING[random.nextInt(4)];
                StoreShape.Entry e = StoreShape.Entry.of(id, type, text.toString(),
                        random.nextInt(5));
                shape.upsert(e);
                if (StoreShape.LEARNING_TYPES.contains(e.type())) {
                    truth.put(id, e);
                } else {
                    truth.remove(id);
                    shape.delete(id);
                }
            }
            if (op % 1000 == 999) {
                assertEqualsRecomputation(shape, truth);
            }
        }
        assertThat(truth.size()).isGreaterThan(StoreShape.SAMPLE_LIMIT); // the sample is a strict subset
        assertEqualsRecomputation(shape, truth);

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        shape.writeTo(new DataOutputStream(bytes));
        StoreShape restored = StoreShape.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(restored.metrics()).isEqualTo(shape.metrics());
        assertThat(restored.sampleIds()).isEqualTo(shape.sampleIds());
        assertThat(restored.meanLength()).isEqualTo(shape.meanLength());
        assertThat(restored.idsWithoutTerms()).isEmpty();
        CanarySet set = CanarySet.mint(shape, 40);
        assertThat(restored.get(set.canaries().get(0).anchorRef()).termHashes())
                .containsExactly(shape.get(set.canaries().get(0).anchorRef()).termHashes());
        assertThat(set.ranks(restored, 10)).containsExactly(set.ranks(shape, 10));
    }

    @Test
    void aShapeOfTheFirstFormatIsReadWithoutTermsOrRefs() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(2); // maxGeneration, then the entries without terms or source refs
        out.writeInt(2);
        for (String id : List.of("m1", "m2")) {
            out.writeUTF(id);
            out.writeByte(RecordType.MEMORY.ordinal());
            out.writeLong(NormHash.value("likes green tea " + id));
            out.writeInt(3);
            out.writeDouble(1.0);
            out.writeUTF("likes green");
            out.writeInt(4);
        }
        StoreShape restored = StoreShape.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(restored.size()).isEqualTo(2);
        assertThat(restored.metrics().overGenerationCount()).isEqualTo(2); // generation 3 > maxGeneration 2
        assertThat(restored.meanLength()).isEqualTo(4.0);
        assertThat(restored.idsWithoutTerms()).containsExactly("m1", "m2");
        // until their texts are read again they match no canary
        CanarySet set = CanarySet.mint(restored, 40);
        assertThat(set.ranks(restored, 10)).containsExactly(-1, -1);
        restored.upsert(StoreShape.Entry.of("m1", RecordType.MEMORY, "likes green tea m1", 3));
        assertThat(restored.idsWithoutTerms()).containsExactly("m2");
        assertThat(set.ranks(restored, 10)).contains(0);
    }

    private static void assertEqualsRecomputation(StoreShape shape, Map<String, StoreShape.Entry> truth) {
        Map<RecordType, Long> byType = new EnumMap<>(RecordType.class);
        Map<Long, Integer> hashes = new HashMap<>();
        Map<Integer, Long> generations = new HashMap<>();
        long over = 0;
        for (StoreShape.Entry e : truth.values()) {
            byType.merge(e.type(), 1L, Long::sum);
            hashes.merge(e.contentHash(), 1, Integer::sum);
            generations.merge(e.generation(), 1L, Long::sum);
            over += e.generation() > 2 ? 1 : 0;
        }
        List<StoreShape.Entry> sorted = new ArrayList<>(truth.values());
        sorted.sort(Comparator.comparing((StoreShape.Entry e) -> e.sampleKey(), Long::compareUnsigned)
                .thenComparing(StoreShape.Entry::id));
        List<StoreShape.Entry> sample = sorted.subList(0, Math.min(StoreShape.SAMPLE_LIMIT, sorted.size()));
        double sum = 0; // summed in sample order, as the shape does, so the mean is equal to the last bit
        for (StoreShape.Entry e : sample) {
            sum += e.bigramDiversity();
        }
        double mean = sum / sample.size();

        StoreShape.Metrics m = shape.metrics();
        assertThat(m.total()).isEqualTo(truth.size());
        assertThat(m.byType()).isEqualTo(byType);
        assertThat(shape.contentHashCounts()).isEqualTo(hashes);
        assertThat(m.distinctContentRatio()).isEqualTo(hashes.size() / (double) truth.size());
        assertThat(shape.generationHistogram()).isEqualTo(generations);
        assertThat(m.overGenerationCount()).isEqualTo(over);
        assertThat(shape.sampleIds()).isEqualTo(sample.stream().map(StoreShape.Entry::id).toList());
        assertThat(m.meanBigramDiversity()).isEqualTo(mean);
        assertThat(shape.meanLength()).isCloseTo(truth.values().stream().mapToInt(StoreShape.Entry::length).average().orElse(0),
                org.assertj.core.data.Offset.offset(1e-9));
        assertThat(new HashSet<>(shape.sampleIds())).hasSize(sample.size());
    }
}
