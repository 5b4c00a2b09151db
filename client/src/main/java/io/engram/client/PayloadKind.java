package io.engram.client;

import java.util.function.Predicate;

/** The input payloads, with their schema name, topic and Kafka key. */
public enum PayloadKind {
    TURN("turn.v1", Topics.TURNS),
    DOC("doc.v1", Topics.DOCS),
    MEMORY("memory.v1", Topics.MEMORIES),
    FORGET("forget.v1", Topics.FORGETS);

    private final String schema;
    private final String topic;

    PayloadKind(String schema, String topic) {
        this.schema = schema;
        this.topic = topic;
    }

    public String schema() {
        return schema;
    }

    public String topic() {
        return topic;
    }

    /** The kind of this schema name, or null. */
    public static PayloadKind ofSchema(String schema) {
        return first(k -> k.schema.equals(schema));
    }

    /** The kind read from this topic, or null. */
    public static PayloadKind ofTopic(String topic) {
        return first(k -> k.topic.equals(topic));
    }

    private static PayloadKind first(Predicate<PayloadKind> matches) {
        for (PayloadKind k : values()) {
            if (matches.test(k)) {
                return k;
            }
        }
        return null;
    }
}
