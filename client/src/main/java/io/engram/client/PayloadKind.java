package io.engram.client;

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

    public static PayloadKind ofSchema(String schema) {
        for (PayloadKind k : values()) {
            if (k.schema.equals(schema)) {
                return k;
            }
        }
        return null;
    }

    public static PayloadKind ofTopic(String topic) {
        for (PayloadKind k : values()) {
            if (k.topic.equals(topic)) {
                return k;
            }
        }
        return null;
    }
}
