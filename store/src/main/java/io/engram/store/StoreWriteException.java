package io.engram.store;

import java.util.List;

/** Writes that did not land after the retry bound, or were refused for good: never a silent drop. */
public final class StoreWriteException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** One document that failed, with OpenSearch's status and reason. */
    public record ItemFailure(String id, int status, String reason) {
    }

    private final transient List<ItemFailure> failures;

    StoreWriteException(String message, List<ItemFailure> failures, Throwable cause) {
        super(message + (failures.isEmpty() ? "" : ": " + failures.subList(0, Math.min(5, failures.size()))
                + (failures.size() > 5 ? " and " + (failures.size() - 5) + " more" : "")), cause);
        this.failures = List.copyOf(failures);
    }

    public List<ItemFailure> failures() {
        return failures;
    }
}
