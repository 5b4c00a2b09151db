package io.engram.service;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a delivery is signed (docs/api.md, "Webhooks"): {@code Engram-Signature: v1=} and the hex HMAC-SHA256, keyed
 * with the webhook's secret as text, of the {@code Engram-Timestamp} header's value, a dot and the body. The
 * timestamp is signed too, so a receiver that refuses old timestamps refuses a replayed delivery.
 */
final class WebhookSignature {

    static final String CHANGE_ID = "Engram-Change-Id";
    static final String TIMESTAMP = "Engram-Timestamp";
    static final String SIGNATURE = "Engram-Signature";

    private WebhookSignature() {
    }

    /** The {@value #SIGNATURE} header's value for this body sent at {@code timestamp} (Unix seconds). */
    static String header(String secret, long timestamp, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] digest = mac.doFinal((timestamp + "." + body).getBytes(StandardCharsets.UTF_8));
            return "v1=" + HexFormat.of().formatHex(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }
}
