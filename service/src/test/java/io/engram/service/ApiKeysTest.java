package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiKeysTest {

    private static final String KEY_A = "key-of-tenant-a-0123456789";
    private static final String KEY_B = "key-of-tenant-b-9876543210";

    @Test
    void aKeyFileOfDigestsHoldsNoKeyAndStillAuthenticates() {
        String line = ApiKeys.keyFileLine(KEY_A, "tenant-a");
        assertThat(line).startsWith("sha256:").endsWith("=tenant-a").doesNotContain(KEY_A);
        ApiKeys keys = ApiKeys.of("# the staging keys\n" + line + "\n" + KEY_B + " = tenant-b\n");
        assertThat(keys.tenantOf(KEY_A)).contains("tenant-a");
        assertThat(keys.tenantOf(KEY_B)).contains("tenant-b");
        assertThat(keys.tenantOf(KEY_A + "x")).isEmpty();
        assertThat(keys.tenantOf(null)).isEmpty();
    }

    @Test
    void theEnvironmentsCommaSeparatedPairsAreKeysToo() {
        ApiKeys keys = ApiKeys.of(ApiKeys.keyFileLine(KEY_A, "tenant-a") + "," + KEY_B + "=tenant-b");
        assertThat(keys.tenantOf(KEY_B)).contains("tenant-b");
        assertThat(keys.tenantOf(KEY_A)).contains("tenant-a");
    }

    @Test
    void badLinesAreRefusedWithTheReason() {
        assertThatThrownBy(() -> ApiKeys.of("short=tenant-a")).hasMessageContaining("at least 16 characters");
        assertThatThrownBy(() -> ApiKeys.of(KEY_A + "=Tenant A")).hasMessageContaining("invalid tenant id");
        assertThatThrownBy(() -> ApiKeys.of("sha256:abc=tenant-a")).hasMessageContaining("64 lower-case hex");
        assertThatThrownBy(() -> ApiKeys.of("no separator here")).hasMessageContaining("KEY=tenant_id");
    }

    @Test
    void anEditedKeyFileIsReadAgainWithoutARestart(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("keys.properties");
        Files.writeString(file, ApiKeys.keyFileLine(KEY_A, "tenant-a") + "\n");
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2026-01-01T00:00:00Z")));
        ApiKeys keys = ApiKeys.watching(file);
        assertThat(keys.tenantOf(KEY_A)).contains("tenant-a");

        Files.writeString(file, ApiKeys.keyFileLine(KEY_B, "tenant-b") + "\n"); // A revoked, B added
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2026-01-02T00:00:00Z")));
        long deadline = System.nanoTime() + 10_000_000_000L; // the file is checked at most once a second
        while (keys.tenantOf(KEY_B).isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(keys.tenantOf(KEY_B)).contains("tenant-b");
        assertThat(keys.tenantOf(KEY_A)).isEmpty();
    }
}
