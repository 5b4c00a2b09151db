package io.engram.jobs.compaction;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.jobs.serde.LegacyJson;
import io.engram.model.compaction.PreservationScore;
import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Summaries as JSON, the layout of compaction's keyed state before it was typed ({@link SummaryRecordSerializer}).
 * Only read: a savepoint taken before then restores its live summaries through here once (docs/operations.md,
 * "Upgrades").
 */
final class LegacySummaryJson {

    private LegacySummaryJson() {
    }

    static SummaryRecord decode(String json) {
        JsonNode o = LegacyJson.read(json, "summary");
        List<String> refs = new ArrayList<>();
        o.path("source_refs").forEach(r -> refs.add(r.asText()));
        float[] embedding = new float[o.path("embedding").size()];
        for (int i = 0; i < embedding.length; i++) {
            embedding[i] = (float) o.path("embedding").get(i).asDouble();
        }
        PreservationScore score = new PreservationScore(o.path("q_align").asDouble(), o.path("q_cover").asDouble(),
                o.path("confidence").asDouble(), o.path("decay_rate").asDouble());
        return new SummaryRecord(o.path("id").asText(), o.path("text").asText(), embedding, refs,
                o.path("generation").asInt(), score, Instant.parse(o.path("from").asText()),
                Instant.parse(o.path("to").asText()), o.path("source_tokens").asInt(), o.path("summary_tokens").asInt());
    }
}
