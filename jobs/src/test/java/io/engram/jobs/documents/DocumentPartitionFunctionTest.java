package io.engram.jobs.documents;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.jobs.PipelineConfig;
import io.engram.jobs.ingest.RejectRecord;
import io.engram.jobs.store.StoreChange;
import io.engram.jobs.store.StoreChange.Delete;
import io.engram.jobs.store.StoreChange.DocumentVersion;
import io.engram.jobs.store.StoreChange.Upsert;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.RecordIds;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The document operator under Flink's keyed harness, with the real tokenizer. */
class DocumentPartitionFunctionTest {

    /** The pipeline's settings with a smaller document budget. */
    private static final DocumentPartitionFunction.Settings SETTINGS = DocumentPartitionFunction.Settings.of(
            PipelineConfig.fromProperties(tau(8192)));
    private static final String V1 = "# Rules\n\n- Always run the tests.\n- Never push to main.\n\nSome lore.\n";
    private static final String V2 = "# Rules\n\n- Always run the linters.\n";

    private static DocEvent version(long version, String content, boolean deleted) {
        return new DocEvent("acme", "coder", "AGENTS.md", "core", version, content, deleted, 1_000L * version,
                "engram.docs.v1", 0, version, content.getBytes(StandardCharsets.UTF_8));
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, DocEvent, StoreChange> harness() throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(
                new DocumentPartitionFunction(() -> EmbeddingModel.ALL_MINILM_L6_V2.open(), SETTINGS)),
                DocEvent::documentKey, Types.STRING);
        harness.setup(StoreChange.TYPE.createSerializer(new SerializerConfigImpl())); // the pipeline's typed seam
        harness.open();
        return harness;
    }

    private static List<StoreChange> feed(KeyedOneInputStreamOperatorTestHarness<String, DocEvent, StoreChange> h, DocEvent doc)
            throws Exception {
        h.getOutput().clear();
        h.processElement(new StreamRecord<>(doc, doc.tsMillis()));
        return List.copyOf(h.extractOutputValues());
    }

    @Test
    void aNewVersionDeletesTheLiveVersionsChunksByIdAfterWritingItsOwn() throws Exception {
        try (var h = harness()) {
            List<StoreChange> first = feed(h, version(1, V1, false));
            assertThat(first.get(3)).as("the version goes live after its chunks")
                    .isEqualTo(new DocumentVersion("acme", "coder", "AGENTS.md", 1, false, 3, first.get(3).tsMillis()));
            first = first.subList(0, 3);
            assertThat(first).allMatch(change -> change instanceof Upsert);
            List<String> v1Chunks = first.stream().map(change -> ((Upsert) change).record().id()).toList();
            // two list items and the paragraph, which carries its heading: no heading is a record of its own
            assertThat(v1Chunks).containsExactly(RecordIds.chunk("acme", "coder", "AGENTS.md", 1, 1),
                    RecordIds.chunk("acme", "coder", "AGENTS.md", 1, 2), RecordIds.chunk("acme", "coder", "AGENTS.md", 1, 3));
            assertThat(((Upsert) first.get(2)).record().text()).isEqualTo("# Rules\nSome lore.");

            List<StoreChange> second = feed(h, version(2, V2, false));
            assertThat(second).extracting(change -> change.getClass().getSimpleName())
                    .containsExactly("Upsert", "Delete", "Delete", "Delete", "DocumentVersion");
            List<Delete> retired = second.subList(1, 4).stream().map(Delete.class::cast).toList();
            assertThat(retired).extracting(Delete::id).containsExactlyElementsOf(v1Chunks);
            assertThat(retired.get(0).type().label()).isEqualTo("invariant"); // a list item: a hard rule
            assertThat(retired.get(2).type().label()).isEqualTo("lore");

            List<StoreChange> deleted = feed(h, version(3, "", true));
            assertThat(deleted).hasSize(2);
            assertThat(deleted.get(0)).isInstanceOfSatisfying(Delete.class, d ->
                    assertThat(d.id()).isEqualTo(RecordIds.chunk("acme", "coder", "AGENTS.md", 2, 1)));
            assertThat(deleted.get(1)).isInstanceOfSatisfying(DocumentVersion.class, v ->
                    assertThat(v.deleted() + " v" + v.version() + " " + v.chunks()).isEqualTo("true v3 0"));
        }
    }

    @Test
    void aVersionWhoseHardRulesExceedTheLimitGoesLiveWithTheWeakestAsSoftRulesAndAWarning() throws Exception {
        StringBuilder doc = new StringBuilder("# Release\n\n");
        for (int i = 0; i < 400; i++) { // about 16 tokens each: 6,400 over the limit of 0.4 x 8192 = 3,276
            doc.append("- You must verify checklist item ").append(i).append(" with the release manager.\n");
        }
        doc.append("- Never deploy to production on a Friday.\n");
        try (var h = harness()) {
            List<StoreChange> changes = feed(h, version(1, doc.toString(), false));
            List<MemoryRecord> records = changes.stream().filter(Upsert.class::isInstance)
                    .map(c -> ((Upsert) c).record()).toList();
            assertThat(records).hasSize(401).allMatch(r -> r.type() == RecordType.INVARIANT);
            long hardTokens = records.stream().filter(r -> r.tier() == 1).mapToLong(MemoryRecord::tokens).sum();
            assertThat(hardTokens).isPositive().isLessThanOrEqualTo(3276);
            assertThat(records.stream().filter(r -> r.tier() == 2)).isNotEmpty();
            // the prohibition binds most: it stays hard although it comes last
            assertThat(records.get(400).text()).startsWith("- Never deploy");
            assertThat(records.get(400).tier()).isEqualTo(1);
            List<RejectRecord> warnings = h.getSideOutput(DocumentPartitionFunction.REJECTS).stream()
                    .map(StreamRecord::getValue).toList();
            assertThat(warnings).singleElement().satisfies(w -> {
                assertThat(w.reasonCode()).isEqualTo("hard_rules_demoted");
                assertThat(w.message()).contains("hard rules moved to the soft tier", "3276");
                assertThat(new String(w.toJsonBytes(), StandardCharsets.UTF_8)).contains("\"severity\":\"warning\"");
            });
        }
    }

    private static Properties tau(int tau) {
        Properties p = new Properties();
        p.setProperty("partition.tau", String.valueOf(tau));
        return p;
    }
}
