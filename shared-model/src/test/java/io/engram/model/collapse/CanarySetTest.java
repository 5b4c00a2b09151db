package io.engram.model.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.retrieval.RecordType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CanarySetTest {

    private static List<StoreShape.Entry> entries() {
        List<StoreShape.Entry> entries = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            entries.add(StoreShape.Entry.of("m" + i, RecordType.MEMORY, "memory number " + i + " about topic" + i, 0));
        }
        for (int i = 0; i < 5; i++) {
            entries.add(StoreShape.Entry.of("l" + i, RecordType.LESSON, "lesson learned " + i + " regarding build" + i, 0));
        }
        for (int i = 0; i < 30; i++) {
            entries.add(StoreShape.Entry.of("k" + i, RecordType.KNOWLEDGE, "knowledge fact " + i + " on subject" + i, 0));
        }
        return entries;
    }

    @Test
    void mintingIsStratifiedBackfilledAndIndependentOfWriteOrder() {
        List<StoreShape.Entry> entries = entries();
        StoreShape a = new StoreShape(2);
        entries.forEach(a::upsert);
        Collections.shuffle(entries, new Random(7));
        StoreShape b = new StoreShape(2);
        entries.forEach(b::upsert);

        CanarySet set = CanarySet.mint(a, 40);
        assertThat(CanarySet.mint(b, 40)).isEqualTo(set);
        assertThat(set.canaries()).hasSize(40);
        assertThat(set.id()).startsWith("cs-");
        Map<RecordType, Long> perType = set.canaries().stream()
                .collect(java.util.stream.Collectors.groupingBy(CanarySet.Canary::anchorType,
                        java.util.stream.Collectors.counting()));
        // quota 40 / 3 = 13 per type; lessons have only 5, the other 9 slots are backfilled in sample order
        assertThat(perType.get(RecordType.LESSON)).isEqualTo(5);
        assertThat(perType.get(RecordType.MEMORY) + perType.get(RecordType.KNOWLEDGE)).isEqualTo(35);
        assertThat(perType.get(RecordType.MEMORY)).isGreaterThanOrEqualTo(13);
        assertThat(perType.get(RecordType.KNOWLEDGE)).isGreaterThanOrEqualTo(13);
        assertThat(set.canaries().get(0).id()).isEqualTo("c000");
        assertThat(set.anchors()).hasSize(40);
    }

    @Test
    void aSmallStoreMintsOneCanaryPerRecordAndADifferentStoreADifferentSet() {
        StoreShape shape = new StoreShape(2);
        shape.upsert(StoreShape.Entry.of("m1", RecordType.MEMORY, "Prefers oolong tea in the afternoon", 0));
        shape.upsert(StoreShape.Entry.of("m2", RecordType.MEMORY, "ok", 0)); // no query term: cannot be a canary
        CanarySet set = CanarySet.mint(shape, 40);
        assertThat(set.canaries()).containsExactly(
                new CanarySet.Canary("c000", "m1", RecordType.MEMORY, "prefers oolong afternoon"));
        shape.upsert(StoreShape.Entry.of("m3", RecordType.MEMORY, "Walks the dog every morning", 0));
        assertThat(CanarySet.mint(shape, 40).id()).isNotEqualTo(set.id());
    }

    @Test
    void queryTakesTheFirstDistinctLongWords() {
        assertThat(CanarySet.queryOf("The user's cat, Miso, likes tuna; the CAT hates baths and vacuum cleaners."))
                .isEqualTo("user miso likes tuna hates baths vacuum cleaners");
    }

    @Test
    void aHitIsTheAnchorOrAnEntryThatNamesItInItsSourceRefs() {
        CanarySet.Canary canary = new CanarySet.Canary("c000", "m1", RecordType.MEMORY, "q");
        StoreShape.Entry x = StoreShape.Entry.of("x", RecordType.MEMORY, "x", 0);
        StoreShape.Entry y = StoreShape.Entry.of("y", RecordType.MEMORY, "y", 0);
        StoreShape.Entry m1 = StoreShape.Entry.of("m1", RecordType.MEMORY, "m1", 0);
        StoreShape.Entry g1 = StoreShape.Entry.of("g1", RecordType.SUMMARY, "g1", 1, List.of("m0", "m1"));
        StoreShape.Entry g2 = StoreShape.Entry.of("g2", RecordType.SUMMARY, "g2", 2, List.of("g1"));
        assertThat(CanarySet.rankOfHit(canary, List.of(x, m1), 10)).isEqualTo(1);
        assertThat(CanarySet.rankOfHit(canary, List.of(x, y, g1), 10)).isEqualTo(2);
        // one level only: g2 merged g1 and dropped m1
        assertThat(CanarySet.rankOfHit(canary, List.of(g2), 10)).isEqualTo(-1);
        assertThat(CanarySet.rankOfHit(canary, List.of(x, y, g1), 2)).isEqualTo(-1);
    }

    @Test
    void ranksEachCanaryAgainstTheRecordsTheShapeHolds() {
        StoreShape shape = new StoreShape(2);
        shape.upsert(StoreShape.Entry.of("s1", RecordType.SUMMARY, "budget review budget review deadline friday office", 1));
        shape.upsert(StoreShape.Entry.of("s2", RecordType.SUMMARY, "budget migration harbour harbour harbour building move", 1));
        shape.upsert(StoreShape.Entry.of("s3", RecordType.SUMMARY, "hiring a data engineer for the pipeline", 1));
        CanarySet set = new CanarySet("cs-test", List.of(
                new CanarySet.Canary("c000", "s1", RecordType.SUMMARY, "budget harbour"),
                new CanarySet.Canary("c001", "s2", RecordType.SUMMARY, "budget harbour"),
                new CanarySet.Canary("c002", "s3", RecordType.SUMMARY, "engineer pipeline"),
                new CanarySet.Canary("c003", "gone", RecordType.MEMORY, "unrelated words")));
        // "harbour" is rare among the tenant's records: s2 (three of it) before s1 (budget twice)
        assertThat(set.ranks(shape, 10)).containsExactly(1, 0, 0, -1);

        // s3 merged into a generation-2 summary that names it: still found, through its source refs
        shape.delete("s3");
        shape.upsert(StoreShape.Entry.of("g2", RecordType.SUMMARY, "the data engineer joins the pipeline team", 2,
                List.of("s3")));
        assertThat(set.ranks(shape, 10)).containsExactly(1, 0, 0, -1);
        assertThat(set.ranks(shape, 1)).containsExactly(-1, 0, 0, -1);
    }
}
