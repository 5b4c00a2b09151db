package io.engram.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The import routine with a publisher that keeps what it is given: rewriting, validation, skips, rejects, order. */
class ImporterTest {

    private static final Importer IMPORTER = new Importer(PayloadValidator.Limits.DEFAULT);

    /** Keeps every batch it is given. */
    static final class Kept implements Importer.Sink<RuntimeException> {
        final List<List<Payload>> batches = new ArrayList<>();

        @Override
        public void publish(List<Payload> batch) {
            batches.add(batch);
        }

        List<Payload> all() {
            return batches.stream().flatMap(List::stream).toList();
        }
    }

    static String turn(String tenant, String session, String turnId, int seq, String text) {
        return "{\"schema\":\"turn.v1\",\"tenant_id\":\"" + tenant + "\",\"session_id\":\"" + session
                + "\",\"turn_id\":\"" + turnId + "\",\"seq\":" + seq + ",\"role\":\"user\",\"text\":\"" + text
                + "\",\"ts\":\"2025-01-01T00:00:0" + seq + "Z\"}";
    }

    static String memory(String tenant, String id, String text) {
        return "{\"schema\":\"memory.v1\",\"tenant_id\":\"" + tenant + "\",\"memory_id\":\"" + id
                + "\",\"type\":\"memory\",\"op\":\"upsert\",\"text\":\"" + text + "\",\"ts\":\"2025-01-02T00:00:00Z\"}";
    }

    static Importer.Outcome run(String lines, Importer.Sink<RuntimeException> sink) throws IOException {
        return IMPORTER.run(new ByteArrayInputStream(lines.getBytes(StandardCharsets.UTF_8)), "dst",
                Importer.Format.ENGRAM, sink);
    }

    @Test
    void everySchemaIsSentAsTheTargetTenantsUnderItsKeyAndDerivedLinesAreSkipped() throws IOException {
        String export = String.join("\n",
                turn("src", "s1", "t1", 1, "hello"),
                "{\"schema\":\"memory.v1\",\"tenant_id\":\"src\",\"memory_id\":\"city-2\",\"type\":\"memory\","
                        + "\"op\":\"upsert\",\"text\":\"lives in Lyon\",\"key\":\"user.city\",\"user_id\":\"u1\","
                        + "\"source_refs\":[\"src/city-1\",\"t1\"],\"supersedes\":[\"src/city-1\"],\"generation\":1,"
                        + "\"valid_from\":\"2025-01-01T00:00:00Z\",\"ts\":\"2025-01-03T00:00:00Z\"}",
                "{\"schema\":\"doc.v1\",\"tenant_id\":\"src\",\"agent_id\":\"coder\",\"path\":\"AGENTS.md\","
                        + "\"doc_class\":\"core\",\"version\":3,\"content\":\"# Rules\\n- test\",\"ts\":\"2025-01-01T00:00:00Z\"}",
                "{\"schema\":\"derived.v1\",\"tenant_id\":\"src\",\"record\":{\"type\":\"summary\"}}",
                "{\"schema\":\"cursor.v1\",\"tenant_id\":\"src\",\"after\":\"abc\"}", "");
        Kept kept = new Kept();

        Importer.Outcome outcome = run(export, kept);

        assertThat(outcome.accepted()).containsExactly(Map.entry("turn.v1", 1L), Map.entry("memory.v1", 1L),
                Map.entry("doc.v1", 1L));
        assertThat(outcome.skipped()).isEqualTo(2);
        assertThat(outcome.rejected()).isEmpty();
        List<Payload> sent = kept.all();
        assertThat(sent).extracting(Payload::key).containsExactly("dst/s1", "dst", "dst/coder/AGENTS.md");
        assertThat(sent).extracting(p -> p.json().get("tenant_id").asText()).containsOnly("dst");
        JsonNode memory = sent.get(1).json();
        assertThat(memory.get("source_refs").toString()).isEqualTo("[\"dst/city-1\",\"t1\"]");
        assertThat(memory.get("supersedes").toString()).isEqualTo("[\"dst/city-1\"]");
        assertThat(memory.get("key").asText()).isEqualTo("user.city");
        assertThat(memory.get("valid_from").asText()).isEqualTo("2025-01-01T00:00:00Z");
    }

    @Test
    void badLinesAreReportedByNumberAndTheGoodOnesAroundThemAreSentInOrder() throws IOException {
        String export = String.join("\n",
                memory("src", "m1", "first"),
                "{\"schema\":\"memory.v1\",\"tenant_id\":\"src\",\"memory_id\":\"m-trunc",
                "{\"schema\":\"note.v9\",\"tenant_id\":\"src\"}",
                "{\"schema\":\"memory.v1\",\"tenant_id\":\"src\",\"memory_id\":\"m-no-text\",\"type\":\"memory\","
                        + "\"op\":\"upsert\",\"ts\":\"2025-01-02T00:00:00Z\"}",
                memory("Bad Tenant", "m-bad", "bad tenant"),
                "{\"schema\":\"forget.v1\",\"tenant_id\":\"src\",\"forget_id\":\"f1\",\"scope\":\"user\","
                        + "\"target\":\"u1\",\"ts\":\"2025-01-02T00:00:00Z\"}",
                memory("other", "m-other", "another tenant's"),
                memory("src", "m2", "second"),
                "   ",
                turn("src", "s1", "t1", 1, "third"),
                "[1,2]");
        Kept kept = new Kept();

        Importer.Outcome outcome = run(export, kept);

        assertThat(kept.all()).extracting(p -> p.json().path("text").asText()).containsExactly("first", "second", "third");
        assertThat(outcome.accepted()).containsExactly(Map.entry("memory.v1", 2L), Map.entry("turn.v1", 1L));
        Map<Long, String> rejected = outcome.rejected().stream()
                .collect(Collectors.toMap(Importer.Rejected::line, Importer.Rejected::error));
        assertThat(rejected).containsOnlyKeys(2L, 3L, 4L, 5L, 6L, 7L, 11L);
        assertThat(rejected.get(2L)).startsWith("invalid_json: ");
        assertThat(rejected.get(3L)).startsWith("unknown_schema: \"note.v9\"");
        assertThat(rejected.get(4L)).startsWith("schema_violation: memory.v1: ").contains("text");
        assertThat(rejected.get(5L)).startsWith("invalid_tenant: tenant_id \"Bad Tenant\" is not a tenant id");
        assertThat(rejected.get(6L)).isEqualTo("forget.v1: forgets are not imported");
        assertThat(rejected.get(7L)).isEqualTo("invalid_tenant: tenant_id \"other\" is not the export's tenant \"src\""
                + " (its first record's)");
        assertThat(rejected.get(11L)).startsWith("not_an_object: ");
        assertThat(outcome.rejectedTotal()).isEqualTo(7);
    }

    @Test
    void importingTheSameFileTwiceSendsTheSamePayloads() throws IOException {
        String export = String.join("\n", turn("src", "s1", "t1", 1, "hi"), memory("src", "m1", "tea"),
                memory("src", "m2", "coffee"));
        Kept first = new Kept();
        Kept second = new Kept();

        run(export, first);
        run(export, second);

        assertThat(second.all()).extracting(Payload::key).containsExactlyElementsOf(
                first.all().stream().map(Payload::key).toList());
        assertThat(second.all()).extracting(p -> new String(p.bytes(), StandardCharsets.UTF_8)).containsExactlyElementsOf(
                first.all().stream().map(p -> new String(p.bytes(), StandardCharsets.UTF_8)).toList());
    }

    @Test
    void recordsGoInBatchesOfAtMost500KeepingTheirOrder() throws IOException {
        String export = IntStream.range(0, 1201).mapToObj(i -> memory("src", "m" + i, "fact " + i))
                .collect(Collectors.joining("\n"));
        Kept kept = new Kept();

        Importer.Outcome outcome = run(export, kept);

        assertThat(kept.batches).extracting(List::size).containsExactly(500, 500, 201);
        assertThat(kept.all()).extracting(p -> p.json().get("memory_id").asText())
                .containsExactlyElementsOf(IntStream.range(0, 1201).mapToObj(i -> "m" + i).toList());
        assertThat(outcome.accepted()).containsExactly(Map.entry("memory.v1", 1201L));
    }

    @Test
    void theRejectsListedStopAtTheCapAndTheRestAreCounted() throws IOException {
        String export = IntStream.range(0, Importer.MAX_LISTED_REJECTS + 5).mapToObj(i -> "{not json")
                .collect(Collectors.joining("\n"));

        Importer.Outcome outcome = run(export, new Kept());

        assertThat(outcome.rejected()).hasSize(Importer.MAX_LISTED_REJECTS);
        assertThat(outcome.rejectedNotListed()).isEqualTo(5);
        assertThat(outcome.rejected().get(Importer.MAX_LISTED_REJECTS - 1).line()).isEqualTo(Importer.MAX_LISTED_REJECTS);
    }

    @Test
    void aLineOverTheBoundIsReportedWithoutStoppingTheNext() throws IOException {
        Importer small = new Importer(new PayloadValidator.Limits(1024, 1024));
        String longLine = memory("src", "m-long", "x".repeat(70 * 1024));
        Kept kept = new Kept();

        Importer.Outcome outcome = small.run(new ByteArrayInputStream((longLine + "\n" + memory("src", "m2", "short"))
                .getBytes(StandardCharsets.UTF_8)), "dst", Importer.Format.ENGRAM, kept);

        assertThat(outcome.rejected()).containsExactly(new Importer.Rejected(1,
                "text_too_large: a line longer than " + (1024 + 64 * 1024) + " bytes"));
        assertThat(kept.all()).extracting(p -> p.json().get("memory_id").asText()).containsExactly("m2");
    }

    @Test
    void aDryRunCountsWithoutSending() throws IOException {
        Importer.Outcome outcome = IMPORTER.run(new ByteArrayInputStream(memory("src", "m1", "tea")
                .getBytes(StandardCharsets.UTF_8)), "dst", Importer.Format.ENGRAM, Importer.DRY_RUN);

        assertThat(outcome.accepted()).containsExactly(Map.entry("memory.v1", 1L));
    }

    @Test
    void aTargetThatIsNoTenantIdIsRefusedBeforeReading() {
        assertThatThrownBy(() -> IMPORTER.run(new ByteArrayInputStream(new byte[0]), "No Tenant",
                Importer.Format.ENGRAM, new Kept()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'No Tenant' is not a tenant id (^[a-z0-9][a-z0-9_-]{0,62}$)");
    }
}
