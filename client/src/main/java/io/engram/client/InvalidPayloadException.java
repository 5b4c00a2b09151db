package io.engram.client;

/** A payload the gateway tried to send that the pipeline would reject. */
public final class InvalidPayloadException extends IllegalArgumentException {

    private final RejectReason reason;

    public InvalidPayloadException(RejectReason reason, String message) {
        super(reason.code() + ": " + message);
        this.reason = reason;
    }

    public RejectReason reason() {
        return reason;
    }
}
