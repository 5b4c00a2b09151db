package io.engram.model;

import java.util.List;

/** The Kafka topics of Engram's contract (BRIEF.md "Contracts"). */
public final class Topics {

    public static final String TURNS = "engram.turns.v1";
    public static final String DOCS = "engram.docs.v1";
    public static final String MEMORIES = "engram.memories.v1";
    public static final String REJECTS = "engram.rejects.v1";
    public static final String ALERTS = "engram.alerts.v1";

    /** Every topic, inputs first. */
    public static final List<String> ALL = List.of(TURNS, DOCS, MEMORIES, REJECTS, ALERTS);

    private Topics() {
    }
}
