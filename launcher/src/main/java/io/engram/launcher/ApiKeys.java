package io.engram.launcher;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * API keys mapped to tenants: the only way a request gets a tenant. Lookup compares the SHA-256 of the
 * presented key with every configured key's in constant time and never stops early, so neither timing nor
 * length tells an attacker how close a guess was.
 */
final class ApiKeys {

    private static final Pattern TENANT = Pattern.compile("^[a-z0-9][a-z0-9_-]{0,62}$");

    private record Entry(byte[] keyDigest, String tenantId) {
    }

    private final List<Entry> entries;

    ApiKeys(Map<String, String> keyToTenant) {
        List<Entry> list = new ArrayList<>();
        keyToTenant.forEach((key, tenant) -> {
            if (key.length() < 16) {
                throw new IllegalArgumentException("API keys must be at least 16 characters");
            }
            if (!TENANT.matcher(tenant).matches()) {
                throw new IllegalArgumentException("invalid tenant id: " + tenant);
            }
            list.add(new Entry(digest(key), tenant));
        });
        this.entries = List.copyOf(list);
    }

    /** A properties file of {@code key=tenant_id} lines. */
    static ApiKeys load(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        Map<String, String> map = new java.util.LinkedHashMap<>();
        properties.stringPropertyNames().forEach(k -> map.put(k, properties.getProperty(k).trim()));
        return new ApiKeys(map);
    }

    Optional<String> tenantOf(String presentedKey) {
        if (presentedKey == null) {
            return Optional.empty();
        }
        byte[] presented = digest(presentedKey);
        String match = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(presented, e.keyDigest()) && match == null) {
                match = e.tenantId();
            }
        }
        return Optional.ofNullable(match);
    }

    private static byte[] digest(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
