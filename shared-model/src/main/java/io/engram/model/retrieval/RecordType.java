package io.engram.model.retrieval;

import java.util.Locale;

/** The {@code type} of a memory record in OpenSearch (docs/contracts.md, "Contracts"). */
public enum RecordType {
    TURN, SUMMARY, INVARIANT, LORE, MEMORY, LESSON, KNOWLEDGE, WINDOW;

    /** The lower-case name stored in the index. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static RecordType ofLabel(String label) {
        return valueOf(label.toUpperCase(Locale.ROOT));
    }
}
