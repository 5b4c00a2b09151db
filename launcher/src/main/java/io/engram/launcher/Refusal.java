package io.engram.launcher;

/**
 * A start refused for a reason only the operator can settle (state written for another pipeline, offsets without
 * their state): {@code ./engram} prints its message, which names the ways out, without a stack trace, and exits 2.
 */
final class Refusal extends RuntimeException {

    private static final long serialVersionUID = 1L;

    Refusal(String message) {
        super(message, null, false, false);
    }
}
