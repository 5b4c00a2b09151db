package io.engram.model.deontic;

/** The three modalities of standard deontic logic. */
public enum Modality {
    /** O(φ): the agent must do φ. */
    OBLIGATORY("O"),
    /** F(φ): the agent must not do φ. */
    FORBIDDEN("F"),
    /** P(φ): the agent may do φ. */
    PERMITTED("P");

    private final String code;

    Modality(String code) {
        this.code = code;
    }

    /** {@code O}, {@code F} or {@code P}. */
    public String code() {
        return code;
    }
}
