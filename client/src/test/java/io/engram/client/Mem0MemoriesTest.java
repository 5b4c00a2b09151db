package io.engram.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Mem0's memories mapped onto memory.v1, from records written after Mem0's documented answers. */
class Mem0MemoriesTest {

    private static final Importer IMPORTER = new Importer(PayloadValidator.Limits.DEFAULT);

    private static Importer.Outcome run(InputStream in, ImporterTest.Kept kept) throws IOException {
        try (in) {
            return IMPORTER.run(in, "dst", Importer.Format.MEM0, kept);
        }
    }

    private static InputStream fixture(String name) {
        return Mem0MemoriesTest.class.getResourceAsStream("/mem0/" + name);
    }

    @Test
    void aListingPageIsStreamedIntoMemoriesOfTheTargetTenant() throws IOException {
        ImporterTest.Kept kept = new ImporterTest.Kept();

        Importer.Outcome outcome = run(fixture("get-all-page.json"), kept);

        List<Payload> sent = kept.all();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0).json().toString()).isEqualTo("{\"schema\":\"memory.v1\","
                + "\"memory_id\":\"f4cbdb08-7062-4f3e-8eb2-9f5c80dfe64c\",\"type\":\"memory\",\"op\":\"upsert\","
                + "\"text\":\"Alex is planning a trip to San Francisco from July 1st to July 10th\",\"user_id\":\"alex\","
                + "\"agent_id\":\"travel-assistant\",\"expires_at\":\"2024-07-11T00:00:00Z\","
                + "\"ts\":\"2024-07-02T08:30:00Z\",\"tenant_id\":\"dst\"}");
        assertThat(sent.get(1).json().get("ts").asText()).isEqualTo("2024-07-05T15:30:00-07:00"); // updated_at null
        assertThat(sent.get(1).json().has("agent_id")).isFalse();
        assertThat(sent).extracting(Payload::key).containsOnly("dst");
        assertThat(outcome.accepted()).containsExactly(Map.entry("memory.v1", 2L));
        assertThat(outcome.rejected()).containsExactly(new Importer.Rejected(29,
                "schema_violation: a Mem0 memory without memory (its text)"));
    }

    @Test
    void jsonLinesOfMemoryObjectsAreReadOneByOne() throws IOException {
        ImporterTest.Kept kept = new ImporterTest.Kept();

        Importer.Outcome outcome = run(fixture("memories.jsonl"), kept);

        assertThat(kept.all()).extracting(p -> p.json().get("memory_id").asText())
                .containsExactly("c5d6e7f8-0910-4a1b-8c2d-3e4f5a6b7c8d", "d6e7f809-1a2b-4c3d-9e4f-5a6b7c8d9e0f");
        assertThat(kept.all().get(0).json().get("ts").asText()).isEqualTo("2025-03-01T10:00:00.123456-08:00");
        assertThat(kept.all().get(1).json().get("agent_id").asText()).isEqualTo("scheduler");
        assertThat(kept.all().get(1).json().has("expires_at")).as("Mem0 reads a malformed date as no expiry").isFalse();
        assertThat(outcome.rejected()).isEmpty();
    }

    @Test
    void anArrayIsReadAndASyntaxErrorEndsTheInputAtItsLine() throws IOException {
        String input = "[\n{\"id\":\"a\",\"memory\":\"one\",\"created_at\":\"2025-01-01T00:00:00Z\"},\n"
                + "{\"id\":\"b\",\"memory\":\"two\",\"created_at\":\"2025-01-02T00:00:00Z\"},\n"
                + "{\"id\":\"c\",\"memory\": oops},\n"
                + "{\"id\":\"d\",\"memory\":\"never read\",\"created_at\":\"2025-01-03T00:00:00Z\"}]";
        ImporterTest.Kept kept = new ImporterTest.Kept();

        Importer.Outcome outcome = run(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), kept);

        assertThat(kept.all()).extracting(p -> p.json().get("text").asText()).containsExactly("one", "two");
        assertThat(outcome.rejected()).hasSize(1);
        assertThat(outcome.rejected().get(0).line()).isEqualTo(4);
        assertThat(outcome.rejected().get(0).error()).startsWith("invalid_json: ")
                .endsWith("; the rest of the input was not read");
    }

    @Test
    void aMemoryWithoutATimeOrWithANaiveTimeIsRejected() throws IOException {
        String input = "{\"id\":\"a\",\"memory\":\"no time\"}\n"
                + "{\"id\":\"b\",\"memory\":\"naive\",\"created_at\":\"2025-01-01T00:00:00\"}\n";
        Importer.Outcome outcome = run(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                new ImporterTest.Kept());

        assertThat(outcome.rejected()).extracting(Importer.Rejected::line).containsExactly(1L, 2L);
        assertThat(outcome.rejected().get(0).error())
                .isEqualTo("schema_violation: a Mem0 memory without created_at or updated_at");
        assertThat(outcome.rejected().get(1).error()).contains("ts is not an RFC 3339 date-time");
    }
}
