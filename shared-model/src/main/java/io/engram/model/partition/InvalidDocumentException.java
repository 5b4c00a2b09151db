package io.engram.model.partition;

/** A document that cannot be partitioned, with a machine-readable reason for the reject record. */
public final class InvalidDocumentException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Why a document was refused. */
    public enum Reason { TOO_LARGE, NOT_UTF8, BINARY_CONTENT, NESTING_TOO_DEEP }

    private final Reason reason;

    public InvalidDocumentException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
