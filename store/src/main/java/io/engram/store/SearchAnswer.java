package io.engram.store;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/** The parts of one search's answer the store reads; the hits' sources bind straight to maps. */
@JsonIgnoreProperties(ignoreUnknown = true)
record SearchAnswer(JsonNode error, Hits hits, JsonNode aggregations) {

    /** A multi-search's answers, in the order of its searches. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Multi(List<SearchAnswer> responses) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Hits(JsonNode total, List<Hit> hits) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Hit(@JsonProperty("_id") String id, @JsonProperty("_score") Double score,
               @JsonProperty("_source") Map<String, Object> source, JsonNode sort) {
    }

    /** The number of matching records ({@code track_total_hits}). */
    long total() {
        return hits.total().path("value").asLong();
    }

    /** The value of a single-value aggregation ({@code sum}, {@code max}). */
    double aggregate(String name) {
        return aggregations.path(name).path("value").asDouble();
    }
}
