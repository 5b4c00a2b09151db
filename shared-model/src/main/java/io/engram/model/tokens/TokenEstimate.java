package io.engram.model.tokens;

/**
 * The token estimate used when the model's tokenizer is not known (docs/contracts.md §A.4):
 * {@code ceil(len_utf16 / χ)} with χ = 1.6 if the text has any CJK, kana or Hangul character, 2.5 if it has
 * Cyrillic, Arabic or Hebrew, 4.0 otherwise; the empty text is 0 tokens.
 */
public final class TokenEstimate implements TokenCounter {

    public static final TokenEstimate INSTANCE = new TokenEstimate();
    static final double CHI_CJK = 1.6;
    static final double CHI_CYRILLIC_ARABIC_HEBREW = 2.5;
    static final double CHI_DEFAULT = 4.0;

    private TokenEstimate() {
    }

    /** The estimate for {@code text}; allocates nothing. */
    public static int of(CharSequence text) {
        int length = text.length();
        if (length == 0) {
            return 0;
        }
        return (int) Math.ceil(length / chi(text));
    }

    /** Whether the text holds a Han, Hiragana, Katakana, Hangul or Bopomofo character. */
    public static boolean cjk(CharSequence text) {
        return chi(text) == CHI_CJK;
    }

    /** χ of the text: the characters-per-token ratio of the densest script present. */
    static double chi(CharSequence text) {
        boolean rtlOrCyrillic = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x0370) {
                continue; // Latin and symbols: the common case, no script lookup
            }
            int cp = Character.codePointAt(text, i);
            if (Character.isSupplementaryCodePoint(cp)) {
                i++;
            }
            Character.UnicodeScript script = Character.UnicodeScript.of(cp);
            switch (script) {
                case HAN, HIRAGANA, KATAKANA, HANGUL, BOPOMOFO -> {
                    return CHI_CJK;
                }
                case CYRILLIC, ARABIC, HEBREW -> rtlOrCyrillic = true;
                default -> { }
            }
        }
        return rtlOrCyrillic ? CHI_CYRILLIC_ARABIC_HEBREW : CHI_DEFAULT;
    }

    @Override
    public int count(CharSequence text) {
        return of(text);
    }

    @Override
    public String id() {
        return "estimate-chi-v1";
    }
}
