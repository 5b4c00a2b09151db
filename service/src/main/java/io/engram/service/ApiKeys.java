package io.engram.service;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * API keys mapped to tenants: with the keys made by API ({@link KeyDirectory}), the only way a request gets a
 * tenant. A key file has {@code KEY=tenant_id[:scopes]} lines ({@code #} comments): without scopes a tenant's key
 * reads, writes and forgets ({@link Scope#TENANT_DEFAULT}); {@code KEY=*} is an operator key, which reads every
 * tenant and writes none, and {@code KEY=*:read+admin} one that also administers tenants (the admin key). KEY
 * is either {@code sha256:} and the hex SHA-256 of the key (so the file holds no key) or the key itself (at
 * least 16 characters); only digests are kept in memory. The file is read again when it changes, so keys are
 * added and revoked without a restart. Lookup compares the presented key's digest with every configured one in
 * constant time and never stops early, so neither timing nor length tells an attacker how close a guess was.
 */
public final class ApiKeys {

    private static final Pattern TENANT = Pattern.compile("^[a-z0-9][a-z0-9_-]{0,62}$");
    private static final String DIGEST_PREFIX = "sha256:";
    private static final long RECHECK_NANOS = 1_000_000_000L;

    private record Entry(byte[] keyDigest, String tenantId, Set<Scope> scopes) {
    }

    private final Path file;
    private volatile List<Entry> entries;
    private volatile FileTime loadedVersion;
    private volatile long checkedAt;

    private ApiKeys(Path file, List<Entry> entries) {
        this.file = file;
        this.entries = entries;
    }

    /** The keys of a file, read again whenever it changes. */
    public static ApiKeys watching(Path file) throws IOException {
        ApiKeys keys = new ApiKeys(file, List.of());
        keys.reload();
        return keys;
    }

    /** Fixed keys from text in the file's format, lines or comma-separated pairs (an environment variable). */
    public static ApiKeys of(String keyFileText) {
        return new ApiKeys(null, parse(keyFileText.replace(',', '\n')));
    }

    /** The line a key file holds for {@code key} of a grant ({@code tenant_id[:scopes]}): its digest, never the key. */
    public static String keyFileLine(String key, String grant) {
        return DIGEST_PREFIX + HexFormat.of().formatHex(digest(key)) + "=" + grant;
    }

    /** The grant of the operator's admin key: it reads every tenant and administers tenants and keys. */
    public static final String ADMIN_GRANT = "*:read+admin";

    /** A fresh random key per grant, for a process that prints its keys once ({@code up}, the demo). */
    public static Map<String, String> generate(List<String> grants) {
        Map<String, String> keyByGrant = new LinkedHashMap<>();
        for (String grant : grants) {
            keyByGrant.put(grant, newSecret());
        }
        return keyByGrant;
    }

    /** A new key: 24 random bytes, hex, after {@code ek_}. */
    static String newSecret() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return "ek_" + HexFormat.of().formatHex(bytes);
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    /** Fixed keys, grant ({@code tenant_id[:scopes]}) → key, kept as digests only. */
    public static ApiKeys of(Map<String, String> keyByTenant) {
        StringBuilder lines = new StringBuilder();
        keyByTenant.forEach((tenant, key) -> lines.append(keyFileLine(key, tenant)).append('\n'));
        return of(lines.toString());
    }

    /** Whether {@code text} is a tenant id (what a key file may map a key to). */
    public static boolean isTenantId(String text) {
        return TENANT.matcher(text).matches();
    }

    /** The tenant of an operator key: every tenant, read only. */
    public static final String OPERATOR = "*";

    /**
     * Who presents a key: its tenant ({@link #OPERATOR} for an operator key), an id that names the key in logs
     * and lists (a short digest of a key file's key, the {@code key_id} of one made by API), and what it may do.
     */
    public record Caller(String tenantId, String keyId, Set<Scope> scopes) {
        public boolean operator() {
            return OPERATOR.equals(tenantId);
        }
    }

    public Optional<Caller> identify(String presentedKey) {
        return presentedKey == null ? Optional.empty() : identify(digest(presentedKey));
    }

    /** The caller of the key with this digest. */
    Optional<Caller> identify(byte[] presented) {
        reloadIfChanged();
        Entry match = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(presented, e.keyDigest()) && match == null) {
                match = e;
            }
        }
        return Optional.ofNullable(match).map(e -> new Caller(e.tenantId(), HexFormat.of().formatHex(presented, 0, 8),
                e.scopes()));
    }

    public Optional<String> tenantOf(String presentedKey) {
        return identify(presentedKey).map(Caller::tenantId);
    }

    private void reloadIfChanged() {
        long now = System.nanoTime();
        if (file == null || now - checkedAt < RECHECK_NANOS) {
            return;
        }
        checkedAt = now;
        try {
            if (!Files.getLastModifiedTime(file).equals(loadedVersion)) {
                reload();
            }
        } catch (IOException | RuntimeException e) {
            // a half-written or unreadable file keeps the keys that were valid: the service stays up
            org.slf4j.LoggerFactory.getLogger(ApiKeys.class).warn("API key file {} not reloaded: {}", file, e.getMessage());
        }
    }

    private synchronized void reload() throws IOException {
        FileTime version = Files.getLastModifiedTime(file);
        entries = parse(Files.readString(file, StandardCharsets.UTF_8));
        loadedVersion = version;
    }

    private static List<Entry> parse(String text) {
        List<Entry> list = new ArrayList<>();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.lastIndexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("an API key line is KEY=tenant_id[:scopes]");
            }
            String key = line.substring(0, eq).strip();
            String grant = line.substring(eq + 1).strip();
            int colon = grant.indexOf(':');
            String tenant = colon < 0 ? grant : grant.substring(0, colon);
            if (!isTenantId(tenant) && !tenant.equals(OPERATOR)) {
                throw new IllegalArgumentException("invalid tenant id: " + tenant);
            }
            Set<Scope> scopes = colon >= 0 ? Scope.parse(grant.substring(colon + 1))
                    : tenant.equals(OPERATOR) ? Set.of(Scope.READ) : Scope.TENANT_DEFAULT;
            if (tenant.equals(OPERATOR) && (scopes.contains(Scope.WRITE) || scopes.contains(Scope.FORGET))) {
                throw new IllegalArgumentException("an operator key reads and administers; it never writes or forgets");
            }
            if (key.startsWith(DIGEST_PREFIX)) {
                String hex = key.substring(DIGEST_PREFIX.length());
                if (!hex.matches("[0-9a-f]{64}")) {
                    throw new IllegalArgumentException("a key digest is sha256: and 64 lower-case hex digits");
                }
                list.add(new Entry(HexFormat.of().parseHex(hex), tenant, scopes));
            } else {
                if (key.length() < 16) {
                    throw new IllegalArgumentException("API keys must be at least 16 characters");
                }
                list.add(new Entry(digest(key), tenant, scopes));
            }
        }
        return List.copyOf(list);
    }

    static byte[] digest(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
