package io.engram.model.partition;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Ψ's key (docs/contracts.md §A.6): {@code sha256(raw ‖ 0x00 ‖ tokenizer_id)} as lower-case hex. The tokenizer is
 * part of the key because token counts, and so budgets, depend on it.
 */
public final class DocumentCacheKey {

    private DocumentCacheKey() {
    }

    public static String of(byte[] raw, String tokenizerId) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
        sha256.update(raw);
        sha256.update((byte) 0);
        sha256.update(tokenizerId.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(sha256.digest());
    }
}
