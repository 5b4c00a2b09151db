package io.engram.client;

/** A payload the gateway tried to send that the pipeline would reject. */
public final class InvalidPayloadException extends IllegalArgumentException {

    private final RejectReason reason;
    private final String detail;

    public InvalidPayloadException(RejectReason reason, String detail) {
        super(reason.code() + ": " + detail);
        this.reason = reason;
        this.detail = detail;
    }

    public RejectReason reason() {
        return reason;
    }

    /** What is wrong, without the reason code. */
    public String detail() {
        return detail;
    }
}
