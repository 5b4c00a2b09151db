package io.engram.model.embed;

/** UTF-16 hygiene for text headed to native code. */
final class Utf16 {

    private Utf16() {
    }

    /** The text with every unpaired surrogate replaced by U+FFFD; the same instance when there is none. */
    static String sanitize(String text) {
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return replaceLoneSurrogates(text);
            }
        }
        return text;
    }

    private static String replaceLoneSurrogates(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
            } else {
                out.append(Character.isSurrogate(c) ? '\uFFFD' : c);
            }
        }
        return out.toString();
    }
}
