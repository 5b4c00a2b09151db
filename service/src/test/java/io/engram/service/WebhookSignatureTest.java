package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Properties;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** A delivery's signature as a receiver checks it, and the backoff between attempts. */
class WebhookSignatureTest {

    private static final String SECRET = "5f0c4a2b9e7d13386a1f0e9b2c4d6e8f00112233445566778899aabbccddeeff";
    private static final String BODY = "{\"schema\":\"change.v1\",\"change_id\":\"0123456789abcdef0123456789abcdef\","
            + "\"tenant_id\":\"acme\",\"kind\":\"deleted\",\"ts\":\"2026-12-07T18:00:00Z\",\"record_id\":\"acme/m1\"}";
    private static final long TIMESTAMP = 1765130400L;

    @Test
    void theSignatureIsTheHmacOfTheTimestampADotAndTheBodyKeyedWithTheSecret() throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String independent = HexFormat.of().formatHex(mac.doFinal((TIMESTAMP + "." + BODY).getBytes(StandardCharsets.UTF_8)));

        assertThat(WebhookSignature.header(SECRET, TIMESTAMP, BODY)).isEqualTo("v1=" + independent)
                // Python's hmac.new(secret.encode(), (ts + "." + body).encode(), hashlib.sha256).hexdigest()
                .isEqualTo("v1=8cda505d13a5c2be3de6ff60f39028d7b35e59b469457d684b5d39e9fea3a3b9");
        assertThat(WebhookSignature.header(SECRET, TIMESTAMP + 1, BODY)).as("the timestamp is signed")
                .isNotEqualTo("v1=" + independent);
        assertThat(WebhookSignature.header(SECRET, TIMESTAMP, BODY.replace("m1", "m2"))).as("the body is signed")
                .isNotEqualTo("v1=" + independent);
    }

    @Test
    void theBackoffDoublesFromTheInitialWaitUpToItsCapAndJitterTakesAtMostHalf() {
        WebhookSettings s = settings(Map.of());
        assertThat(s.backoffInitial()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.backoff(1, 0)).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.backoff(2, 0)).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.backoff(4, 0)).isEqualTo(Duration.ofSeconds(8));
        assertThat(s.backoff(9, 0)).isEqualTo(Duration.ofSeconds(256));
        assertThat(s.backoff(10, 0)).as("capped at 5 min").isEqualTo(Duration.ofMinutes(5));
        assertThat(s.backoff(10_000, 0)).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.backoff(3, 0.5)).isEqualTo(Duration.ofSeconds(3));
        assertThat(s.backoff(3, 0.999_999)).isEqualTo(Duration.ofMillis(2001));
    }

    @Test
    void settingsThatCannotWorkAreRefusedWithTheKeyToChange() {
        assertThatThrownBy(() -> settings(Map.of("webhooks.timeout-ms", "40000")))
                .hasMessageContaining("webhooks.lease-ms must be more than twice webhooks.timeout-ms");
        assertThatThrownBy(() -> settings(Map.of("webhooks.backoff-max-ms", "10")))
                .hasMessageContaining("webhooks.backoff-max-ms");
        assertThatThrownBy(() -> settings(Map.of("webhooks.senders", "0"))).hasMessageContaining("webhooks.senders");
        WebhookSettings fast = settings(Map.of("webhooks.backoff-initial-ms", "5", "webhooks.backoff-max-ms", "40",
                "webhooks.enabled", "false"));
        assertThat(fast.enabled()).isFalse();
        assertThat(fast.backoff(6, 0)).isEqualTo(Duration.ofMillis(40));
    }

    private static WebhookSettings settings(Map<String, String> values) {
        Properties p = new Properties();
        p.putAll(values);
        return ServiceConfig.from(p, Map.of()).webhooks();
    }
}
