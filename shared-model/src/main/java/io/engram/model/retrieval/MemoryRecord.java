package io.engram.model.retrieval;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A memory record as stored in OpenSearch (docs/contracts.md, "Contracts"): one document of the memory index. Absent
 * optional fields are {@code null}. {@link #toSource()} and {@link #fromSource} are the index's JSON shape.
 */
public record MemoryRecord(String id, String tenantId, RecordType type, Integer tier, String text, float[] embedding,
                           List<String> sourceRefs, int generation, Double confidence, Double decayRate,
                           Double authority, String sessionId, String userId, String role, String agentId,
                           String docPath, Long docVersion, Integer position, int tokens, Instant ts) {

    public MemoryRecord {
        if (id == null || id.isEmpty() || tenantId == null || type == null || text == null || ts == null) {
            throw new IllegalArgumentException("a memory record needs id, tenant_id, type, text and ts");
        }
        sourceRefs = sourceRefs == null ? List.of() : List.copyOf(sourceRefs);
    }

    /**
     * A record of the fields every record has; the optional ones are set by name on the returned builder, e.g.
     * {@code MemoryRecord.of(id, tenant, RecordType.TURN, text, ts).session(s).role("user").tokens(12).build()}.
     */
    public static Builder of(String id, String tenantId, RecordType type, String text, Instant ts) {
        return new Builder(id, tenantId, type, text, ts);
    }

    /** Named optional fields of a {@link MemoryRecord}; unset ones stay absent (null, 0 or empty). */
    public static final class Builder {
        private final String id;
        private final String tenantId;
        private final RecordType type;
        private final String text;
        private final Instant ts;
        private Integer tier;
        private float[] embedding;
        private List<String> sourceRefs = List.of();
        private int generation;
        private Double confidence;
        private Double decayRate;
        private Double authority;
        private String sessionId;
        private String userId;
        private String role;
        private String agentId;
        private String docPath;
        private Long docVersion;
        private Integer position;
        private int tokens;

        private Builder(String id, String tenantId, RecordType type, String text, Instant ts) {
            this.id = id;
            this.tenantId = tenantId;
            this.type = type;
            this.text = text;
            this.ts = ts;
        }

        public Builder tier(Integer value) {
            tier = value;
            return this;
        }

        public Builder embedding(float[] value) {
            embedding = value;
            return this;
        }

        /** The records this one was made from, and its generation (0 for an original, n + 1 for a merge). */
        public Builder provenance(List<String> refs, int gen) {
            sourceRefs = refs;
            generation = gen;
            return this;
        }

        /** A summary's preservation confidence and the decay rate derived from it. */
        public Builder quality(double conf, double decay) {
            confidence = conf;
            decayRate = decay;
            return this;
        }

        public Builder authority(Double value) {
            authority = value;
            return this;
        }

        public Builder session(String value) {
            sessionId = value;
            return this;
        }

        public Builder user(String value) {
            userId = value;
            return this;
        }

        public Builder role(String value) {
            role = value;
            return this;
        }

        /** Where a chunk sits: the agent's document, its version and the node's position in it. */
        public Builder document(String agent, String path, Long version) {
            agentId = agent;
            docPath = path;
            docVersion = version;
            return this;
        }

        public Builder position(Integer value) {
            position = value;
            return this;
        }

        public Builder tokens(int value) {
            tokens = value;
            return this;
        }

        public MemoryRecord build() {
            return new MemoryRecord(id, tenantId, type, tier, text, embedding, sourceRefs, generation, confidence,
                    decayRate, authority, sessionId, userId, role, agentId, docPath, docVersion, position, tokens, ts);
        }
    }

    /** This record with {@code vector} as its embedding (null for none) and {@code tokens} as its token count. */
    public MemoryRecord withEmbedding(float[] vector, int tokens) {
        return new MemoryRecord(id, tenantId, type, tier, text, vector, sourceRefs, generation, confidence, decayRate,
                authority, sessionId, userId, role, agentId, docPath, docVersion, position, tokens, ts);
    }

    /** The document body for the index. */
    public Map<String, Object> toSource() {
        Map<String, Object> source = new LinkedHashMap<>();
        source.put("tenant_id", tenantId);
        source.put("type", type.label());
        putIfPresent(source, "tier", tier);
        source.put("text", text);
        if (embedding != null) {
            List<Float> vector = new ArrayList<>(embedding.length);
            for (float v : embedding) {
                vector.add(v);
            }
            source.put("embedding", vector);
        }
        source.put("source_refs", sourceRefs);
        source.put("generation", generation);
        putIfPresent(source, "confidence", confidence);
        putIfPresent(source, "decay_rate", decayRate);
        putIfPresent(source, "authority", authority);
        putIfPresent(source, "session_id", sessionId);
        putIfPresent(source, "user_id", userId);
        putIfPresent(source, "role", role);
        putIfPresent(source, "agent_id", agentId);
        putIfPresent(source, "doc_path", docPath);
        putIfPresent(source, "doc_version", docVersion);
        putIfPresent(source, "position", position);
        source.put("tokens", tokens);
        source.put("ts", ts.toString());
        return source;
    }

    private static void putIfPresent(Map<String, Object> source, String key, Object value) {
        if (value != null) {
            source.put(key, value);
        }
    }

    /** Reads a document body back (the {@code _source} of a hit). */
    public static MemoryRecord fromSource(String id, Map<String, Object> source) {
        float[] embedding = null;
        if (source.get("embedding") instanceof List<?> vector) {
            embedding = new float[vector.size()];
            for (int i = 0; i < embedding.length; i++) {
                embedding[i] = ((Number) vector.get(i)).floatValue();
            }
        }
        List<String> refs = new ArrayList<>();
        if (source.get("source_refs") instanceof List<?> list) {
            list.forEach(r -> refs.add(String.valueOf(r)));
        }
        return new MemoryRecord(id, (String) source.get("tenant_id"), RecordType.ofLabel((String) source.get("type")),
                integer(source.get("tier")), (String) source.get("text"), embedding, refs,
                source.get("generation") == null ? 0 : ((Number) source.get("generation")).intValue(),
                decimal(source.get("confidence")), decimal(source.get("decay_rate")), decimal(source.get("authority")),
                (String) source.get("session_id"), (String) source.get("user_id"), (String) source.get("role"),
                (String) source.get("agent_id"),
                (String) source.get("doc_path"),
                source.get("doc_version") == null ? null : ((Number) source.get("doc_version")).longValue(),
                integer(source.get("position")),
                source.get("tokens") == null ? 0 : ((Number) source.get("tokens")).intValue(),
                Instant.parse((String) source.get("ts")));
    }

    private static Integer integer(Object value) {
        return value == null ? null : ((Number) value).intValue();
    }

    private static Double decimal(Object value) {
        return value == null ? null : ((Number) value).doubleValue();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MemoryRecord other && id.equals(other.id) && tenantId.equals(other.tenantId)
                && toSource().equals(other.toSource());
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "MemoryRecord[" + id + ", " + tenantId + ", " + type.label() + ", \"" + text + "\"]";
    }
}
