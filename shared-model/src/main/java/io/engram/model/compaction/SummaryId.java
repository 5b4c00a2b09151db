package io.engram.model.compaction;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A summary's id, deterministic from tenant, session and its sorted source ids, so a replay or a different
 * arrival order produces the same id and overwrites instead of duplicating:
 * {@code "sum-" + hex(sha256(tenant ‖ 0 ‖ session ‖ 0 ‖ sorted ids joined by 0))[0..32]}.
 */
public final class SummaryId {

    private SummaryId() {
    }

    public static String of(String tenantId, String sessionId, List<String> sourceIds) {
        List<String> sorted = sourceIds.stream().sorted().toList();
        StringBuilder key = new StringBuilder(tenantId).append('\0').append(sessionId);
        for (String id : sorted) {
            key.append('\0').append(id);
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.toString().getBytes(StandardCharsets.UTF_8));
            return "sum-" + HexFormat.of().formatHex(digest).substring(0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
