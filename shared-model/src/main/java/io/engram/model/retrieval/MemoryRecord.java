package io.engram.model.retrieval;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A memory record as stored in OpenSearch (docs/contracts.md, "Contracts"): one document of the memory index. Absent
 * optional fields are {@code null}. {@link #toSource()} and {@link #fromSource} are the index's JSON shape.
 *
 * <p>A memory's facts (docs/contracts.md, "Supersession, validity and expiry"): its {@code key} within its user,
 * the store ids it {@code supersedes}, what superseded it and when, its validity window and when it expires.
 *
 * <p>A summary's {@code ts} is its last source's; {@code sourcesFrom} is its first source's, so that it is dated by
 * the span it covers.
 */
public record MemoryRecord(String id, String tenantId, RecordType type, Integer tier, String text, float[] embedding,
                           List<String> sourceRefs, int generation, Double confidence, Double decayRate,
                           Double authority, String sessionId, String userId, String role, String agentId,
                           String docPath, Long docVersion, Integer position, int tokens, Instant ts, String key,
                           List<String> supersedes, String supersededBy, Instant supersededAt, Instant validFrom,
                           Instant validUntil, Instant expiresAt, Instant sourcesFrom) {

    public MemoryRecord {
        if (id == null || id.isEmpty() || tenantId == null || type == null || text == null || ts == null) {
            throw new IllegalArgumentException("a memory record needs id, tenant_id, type, text and ts");
        }
        sourceRefs = sourceRefs == null ? List.of() : List.copyOf(sourceRefs);
        supersedes = supersedes == null ? List.of() : List.copyOf(supersedes);
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
        private String key;
        private List<String> supersedes = List.of();
        private String supersededBy;
        private Instant supersededAt;
        private Instant validFrom;
        private Instant validUntil;
        private Instant expiresAt;
        private Instant sourcesFrom;

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

        /** The confidence and decay rate of {@code other}, either of which may be absent. */
        private Builder qualityOf(MemoryRecord other) {
            confidence = other.confidence;
            decayRate = other.decayRate;
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

        /** The agent whose record it is (a memory a gateway keeps per agent): other agents' reads leave it out. */
        public Builder agent(String agent) {
            agentId = agent;
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

        /** The memory's slot within its user (a newer memory of the same key supersedes it), or null. */
        public Builder key(String value) {
            key = value;
            return this;
        }

        /** The memory that replaced this one, and from when; null and null for none. */
        public Builder supersededBy(String by, Instant at) {
            supersededBy = by;
            supersededAt = at;
            return this;
        }

        /** The store ids of the memories this one replaces. */
        public Builder supersedes(List<String> ids) {
            supersedes = ids;
            return this;
        }

        /** When the memory holds: from {@code from} (null: always did) until {@code until} (null: no end). */
        public Builder validity(Instant from, Instant until) {
            validFrom = from;
            validUntil = until;
            return this;
        }

        public Builder expiresAt(Instant value) {
            expiresAt = value;
            return this;
        }

        /** When the first of the record's sources was said (a summary's), or null. */
        public Builder sourcesFrom(Instant value) {
            sourcesFrom = value;
            return this;
        }

        public MemoryRecord build() {
            return new MemoryRecord(id, tenantId, type, tier, text, embedding, sourceRefs, generation, confidence,
                    decayRate, authority, sessionId, userId, role, agentId, docPath, docVersion, position, tokens, ts,
                    key, supersedes, supersededBy, supersededAt, validFrom, validUntil, expiresAt, sourcesFrom);
        }
    }

    /** A builder holding every field of this record, to change some by name. */
    public Builder toBuilder() {
        return of(id, tenantId, type, text, ts).tier(tier).embedding(embedding).provenance(sourceRefs, generation)
                .authority(authority).session(sessionId).user(userId).role(role).document(agentId, docPath, docVersion)
                .position(position).tokens(tokens).key(key).supersedes(supersedes).supersededBy(supersededBy, supersededAt)
                .validity(validFrom, validUntil).expiresAt(expiresAt).sourcesFrom(sourcesFrom).qualityOf(this);
    }

    /** This record with {@code vector} as its embedding (null for none) and {@code tokens} as its token count. */
    public MemoryRecord withEmbedding(float[] vector, int tokens) {
        return toBuilder().embedding(vector).tokens(tokens).build();
    }

    /** This record as superseded by {@code by} from {@code at}; nulls for a record no other supersedes. */
    public MemoryRecord withSupersededBy(String by, Instant at) {
        return toBuilder().supersededBy(by, at).build();
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
        putIfPresent(source, "key", key);
        if (!supersedes.isEmpty()) {
            source.put("supersedes", supersedes);
        }
        putIfPresent(source, "superseded_by", supersededBy);
        putIfPresent(source, "superseded_at", millis(supersededAt));
        putIfPresent(source, "valid_from", millis(validFrom));
        putIfPresent(source, "valid_until", millis(validUntil));
        putIfPresent(source, "expires_at", millis(expiresAt));
        putIfPresent(source, "sources_from", millis(sourcesFrom));
        return source;
    }

    /** The date fields held in the index as epoch milliseconds: a memory's facts', and a summary's span start. */
    public static final List<String> MILLIS_DATES = List.of("superseded_at", "valid_from", "valid_until", "expires_at",
            "sources_from");

    private static Long millis(Instant value) {
        return value == null ? null : value.toEpochMilli();
    }

    private static Instant instant(Object value) {
        return value instanceof Number n ? Instant.ofEpochMilli(n.longValue())
                : value instanceof String s ? Instant.parse(s) : null;
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
        return new MemoryRecord(id, (String) source.get("tenant_id"), RecordType.ofLabel((String) source.get("type")),
                integer(source.get("tier")), (String) source.get("text"), embedding, strings(source.get("source_refs")),
                source.get("generation") == null ? 0 : ((Number) source.get("generation")).intValue(),
                decimal(source.get("confidence")), decimal(source.get("decay_rate")), decimal(source.get("authority")),
                (String) source.get("session_id"), (String) source.get("user_id"), (String) source.get("role"),
                (String) source.get("agent_id"),
                (String) source.get("doc_path"),
                source.get("doc_version") == null ? null : ((Number) source.get("doc_version")).longValue(),
                integer(source.get("position")),
                source.get("tokens") == null ? 0 : ((Number) source.get("tokens")).intValue(),
                Instant.parse((String) source.get("ts")), (String) source.get("key"), strings(source.get("supersedes")),
                (String) source.get("superseded_by"), instant(source.get("superseded_at")),
                instant(source.get("valid_from")), instant(source.get("valid_until")), instant(source.get("expires_at")),
                instant(source.get("sources_from")));
    }

    private static List<String> strings(Object value) {
        List<String> strings = new ArrayList<>();
        if (value instanceof List<?> list) {
            list.forEach(r -> strings.add(String.valueOf(r)));
        }
        return strings;
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
