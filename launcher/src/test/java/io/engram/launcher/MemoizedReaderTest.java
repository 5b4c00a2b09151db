package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.InMemoryMemoryStore;
import io.engram.store.MemoryReader.ScoredRecord;
import io.engram.store.Records;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The evaluation's memo answers a search it has answered from memory, until told to forget: a record written in
 * between shows only after {@link MemoizedReader#forget()}, which is how the test tells a memo from a pass-through.
 */
class MemoizedReaderTest {

    private static final Set<RecordType> TURNS = Set.of(RecordType.TURN);

    @Test
    void answersARepeatedSearchFromMemoryUntilItForgets() {
        InMemoryMemoryStore store = new InMemoryMemoryStore("memoized-reader-test");
        store.ensureIndex("test-model", 2);
        store.upsert(List.of(turn("t/s1/1", 0, "Ann adopted a cat named Pixel", new float[] {1, 0})));
        MemoizedReader memo = new MemoizedReader(store);

        assertThat(ids(memo.bm25("t", "cat", 10, TURNS))).containsExactly("t/s1/1");
        assertThat(ids(memo.knn("t", new float[] {1, 0}, 10, TURNS))).containsExactly("t/s1/1");
        assertThat(memo.turnsAround("t", Map.of("s1", Set.of(0)), 1)).extracting(MemoryRecord::id).containsExactly("t/s1/1");

        store.upsert(List.of(turn("t/s1/2", 1, "The cat sleeps on her keyboard", new float[] {0.8f, 0.6f})));
        // the same searches: the answers kept
        assertThat(ids(memo.bm25("t", "cat", 10, TURNS))).containsExactly("t/s1/1");
        assertThat(ids(memo.knn("t", new float[] {1, 0}, 10, TURNS))).containsExactly("t/s1/1");
        assertThat(memo.turnsAround("t", Map.of("s1", Set.of(0)), 1)).extracting(MemoryRecord::id).containsExactly("t/s1/1");
        // another search is asked of the store, and so is every search once forgotten
        assertThat(ids(memo.bm25("t", "keyboard", 10, TURNS))).containsExactly("t/s1/2");
        memo.forget();
        assertThat(ids(memo.bm25("t", "cat", 10, TURNS))).containsExactlyInAnyOrder("t/s1/1", "t/s1/2");
        assertThat(ids(memo.knn("t", new float[] {1, 0}, 10, TURNS))).containsExactly("t/s1/1", "t/s1/2");
        assertThat(memo.turnsAround("t", Map.of("s1", Set.of(0)), 1)).extracting(MemoryRecord::id)
                .containsExactlyInAnyOrder("t/s1/1", "t/s1/2");
        assertThat(memo.count("t", TURNS)).isEqualTo(2);
    }

    private static MemoryRecord turn(String id, int position, String text, float[] vector) {
        return Records.turn("t", "s1", id, "user", position, text, text.split(" ").length, vector);
    }

    private static List<String> ids(List<ScoredRecord> hits) {
        return hits.stream().map(h -> h.record().id()).toList();
    }
}
