package io.engram.jobs.compaction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.jobs.VectorJson;
import io.engram.model.compaction.PreservationScore;
import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Summaries as JSON: in Flink state (schema-stable, no Kryo) and on the wire to the store writer. */
public final class SummaryCodec {

    private static final ObjectMapper JSON = VectorJson.MAPPER;

    private SummaryCodec() {
    }

    public static String encode(SummaryRecord s) {
        ObjectNode o = JSON.createObjectNode();
        o.put("id", s.id()).put("text", s.text()).put("generation", s.generation())
                .put("q_align", s.score().qAlign()).put("q_cover", s.score().qCover())
                .put("confidence", s.score().confidence()).put("decay_rate", s.score().decayRate())
                .put("from", s.from().toString()).put("to", s.to().toString())
                .put("source_tokens", s.sourceTokens()).put("summary_tokens", s.summaryTokens());
        ArrayNode refs = o.putArray("source_refs");
        s.sourceRefs().forEach(refs::add);
        ArrayNode vector = o.putArray("embedding");
        for (float v : s.embedding()) {
            vector.add(v);
        }
        try {
            return JSON.writeValueAsString(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static SummaryRecord decode(String json) {
        try {
            JsonNode o = JSON.readTree(json);
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
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt summary in state", e);
        }
    }
}
