package io.engram.model.collapse;

import java.util.Locale;

/**
 * normHash (docs/contracts.md §D.3): lowercase, collapse runs of whitespace to one space, trim, then FNV-1a-64 over the
 * UTF-16 code units, as lowercase hex without zero padding. Two texts that differ only in case or spacing have
 * the same hash; the distinct-content ratio counts distinct hashes.
 */
public final class NormHash {

    private static final long OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private NormHash() {
    }

    public static String of(String text) {
        return Long.toHexString(value(text));
    }

    /** The 64-bit hash itself (what the store shape counts). */
    public static long value(String text) {
        return fnv1a64(normalize(text));
    }

    static String normalize(String text) {
        return text.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").trim();
    }

    /**
     * FNV-1a-64 over UTF-16 code units; also the store shape's deterministic sample order of record ids and its
     * keys of words and source refs.
     */
    static long fnv1a64(CharSequence s) {
        long h = OFFSET_BASIS;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= PRIME;
        }
        return h;
    }
}
