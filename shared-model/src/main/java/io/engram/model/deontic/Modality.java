package io.engram.model.deontic;

/** The three modalities of standard deontic logic. */
public enum Modality {
    /** O(φ): the agent must do φ. */
    OBLIGATORY,
    /** F(φ): the agent must not do φ. */
    FORBIDDEN,
    /** P(φ): the agent may do φ. */
    PERMITTED;

    private final String code = name().substring(0, 1);

    /** The logic's symbol, the modality's initial: {@code O}, {@code F} or {@code P}. */
    public String code() {
        return code;
    }
}
