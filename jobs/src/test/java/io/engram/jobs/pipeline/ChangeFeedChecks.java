package io.engram.jobs.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.client.KafkaClients;
import io.engram.client.TopicReader;
import io.engram.client.Topics;
import io.engram.jobs.ingest.ForgetEvent;
import io.engram.model.retrieval.ForgetScope;
import io.engram.stack.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

/** The change feed a run published (engram.changes.v1, committed only), and what it must say of the store. */
public final class ChangeFeedChecks {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ChangeFeedChecks() {
    }

    /** The committed changes sent since {@code since}, in each tenant's order (a tenant's are on one partition). */
    public static Map<String, List<JsonNode>> publishedSince(EmbeddedKafka kafka, Instant since) {
        Map<String, List<JsonNode>> byTenant = new LinkedHashMap<>();
        for (var r : TopicReader.readSince(KafkaClients.at(kafka.bootstrapServers()), Topics.CHANGES, since)) {
            try {
                JsonNode change = JSON.readTree(r.value());
                assertThat(new String(r.key(), java.nio.charset.StandardCharsets.UTF_8))
                        .isEqualTo(change.path("tenant_id").asText());
                byTenant.computeIfAbsent(change.path("tenant_id").asText(), t -> new ArrayList<>()).add(change);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return byTenant;
    }

    /**
     * A tenant's feed against its store afterwards: every record it upserted is stored, or a later change of the
     * feed removed it; and no record a forget covers is upserted after the forget (its text never follows it).
     */
    public static void assertTellsTheStore(String tenant, List<JsonNode> feed, List<String> storedIds) {
        for (int i = 0; i < feed.size(); i++) {
            JsonNode change = feed.get(i);
            List<JsonNode> later = feed.subList(i + 1, feed.size());
            if (change.path("kind").asText().equals("upserted")) {
                JsonNode record = change.path("record");
                assertThat(storedIds.contains(record.path("id").asText()) || later.stream().anyMatch(c -> removes(c, record)))
                        .as(tenant + ": upserted and neither stored nor removed later: " + record.path("id").asText())
                        .isTrue();
            } else if (change.path("kind").asText().equals("forgotten")) {
                ForgetEvent forget = forgetOf(tenant, change);
                assertThat(later.stream().filter(c -> c.path("kind").asText().equals("upserted"))
                        .map(c -> c.path("record")).filter(r -> covered(forget, tenant, r)).map(r -> r.path("text").asText()))
                        .as(tenant + ": a forgotten text after its forget " + forget.forgetId()).isEmpty();
            }
        }
    }

    private static boolean removes(JsonNode change, JsonNode record) {
        String kind = change.path("kind").asText();
        if (kind.equals("deleted") || kind.equals("expired") && change.has("record_id")) {
            return change.path("record_id").asText().equals(record.path("id").asText());
        }
        if (kind.equals("forgotten")) {
            return covered(forgetOf(change.path("tenant_id").asText(), change), change.path("tenant_id").asText(), record);
        }
        return kind.equals("expired") && change.at("/forget/target").asText().equals(record.path("type").asText());
    }

    private static ForgetEvent forgetOf(String tenant, JsonNode change) {
        JsonNode f = change.path("forget");
        return new ForgetEvent(tenant, f.path("forget_id").asText(), ForgetScope.ofLabel(f.path("scope").asText()),
                f.path("target").asText(), Instant.parse(change.path("ts").asText()).toEpochMilli());
    }

    private static boolean covered(ForgetEvent forget, String tenant, JsonNode record) {
        List<String> refs = StreamSupport.stream(record.path("source_refs").spliterator(), false).map(JsonNode::asText)
                .toList();
        return forget.covers(tenant, record.path("id").asText(), record.path("session_id").asText(null),
                record.path("user_id").asText(null), refs, Instant.parse(record.path("ts").asText()).toEpochMilli());
    }

    /** The feed as a sorted multiset of messages: what must not depend on failures or timing. */
    public static List<String> asMultiset(Map<String, List<JsonNode>> feed) {
        return feed.values().stream().flatMap(List::stream).map(JsonNode::toString).sorted().toList();
    }
}
