package io.engram.model.embed;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A bounded LRU cache in front of an embedder, keyed by the SHA-256 of the text (and whether it is a query or
 * a document): identical content is embedded once. Duplicates within one call are embedded once too.
 */
public final class CachingEmbedder extends ForwardingEmbedder {

    private final int capacity;
    private final Map<Key, Embedding> cache;

    /** 128 bits of the SHA-256 of (purpose, text): collisions are not a practical concern. */
    private record Key(long high, long low) {
    }

    public CachingEmbedder(Embedder delegate, int capacity) {
        super(delegate);
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.cache = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Embedding> eldest) {
                return size() > CachingEmbedder.this.capacity;
            }
        };
    }

    @Override
    public List<Embedding> embedDocuments(List<String> texts) {
        return embed(texts, false).embeddings();
    }

    @Override
    public EmbeddedBatch embedDocumentBatch(List<String> texts) {
        return embed(texts, false);
    }

    @Override
    public List<Embedding> embedQueries(List<String> texts) {
        return embed(texts, true).embeddings();
    }

    private EmbeddedBatch embed(List<String> texts, boolean query) {
        Embedding[] out = new Embedding[texts.size()];
        Key[] keys = new Key[texts.size()];
        Map<Key, Integer> missing = new LinkedHashMap<>();
        List<String> toEmbed = new ArrayList<>();
        int batchHits = 0;
        synchronized (cache) {
            for (int i = 0; i < texts.size(); i++) {
                keys[i] = key(texts.get(i), query);
                Embedding cached = cache.get(keys[i]);
                if (cached != null) {
                    out[i] = cached;
                    batchHits++;
                } else {
                    if (missing.putIfAbsent(keys[i], toEmbed.size()) == null) {
                        toEmbed.add(texts.get(i));
                    }
                }
            }
        }
        if (!toEmbed.isEmpty()) {
            List<Embedding> fresh = query ? delegate().embedQueries(toEmbed) : delegate().embedDocuments(toEmbed);
            synchronized (cache) {
                for (Map.Entry<Key, Integer> m : missing.entrySet()) {
                    cache.put(m.getKey(), fresh.get(m.getValue()));
                }
            }
            for (int i = 0; i < out.length; i++) {
                if (out[i] == null) {
                    out[i] = fresh.get(missing.get(keys[i]));
                }
            }
        }
        return new EmbeddedBatch(List.of(out), batchHits, toEmbed.size());
    }

    private static Key key(String text, boolean query) {
        byte[] digest = sha256((query ? "q\u0000" : "d\u0000") + text);
        ByteBuffer b = ByteBuffer.wrap(digest);
        return new Key(b.getLong(), b.getLong());
    }

    /** Lower-case hex SHA-256 of the text's UTF-8 bytes (lone surrogates encode as '?'). */
    public static String sha256Hex(String text) {
        return HexFormat.of().formatHex(sha256(text));
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    public int size() {
        synchronized (cache) {
            return cache.size();
        }
    }
}
