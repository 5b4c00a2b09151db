package io.engram.model.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokenEstimateTest {

    @Test
    void emptyTextIsZeroTokens() {
        assertThat(TokenEstimate.of("")).isZero();
    }

    @Test
    void latinTextUsesFourCharactersPerToken() {
        assertThat(TokenEstimate.of("abcd")).isEqualTo(1);
        assertThat(TokenEstimate.of("abcde")).isEqualTo(2); // ceil(5 / 4)
        assertThat(TokenEstimate.of("a".repeat(400))).isEqualTo(100);
    }

    @Test
    void anyCjkKanaOrHangulCharacterSwitchesToOnePointSix() {
        assertThat(TokenEstimate.chi("abc 你")).isEqualTo(1.6);
        assertThat(TokenEstimate.chi("カタカナ")).isEqualTo(1.6);
        assertThat(TokenEstimate.chi("ひらがな")).isEqualTo(1.6);
        assertThat(TokenEstimate.chi("한국어")).isEqualTo(1.6);
        assertThat(TokenEstimate.of("你好世界")).isEqualTo(3); // ceil(4 / 1.6) = ceil(2.5)
        assertThat(TokenEstimate.of("hello 世界")).isEqualTo(5); // ceil(8 / 1.6)
    }

    @Test
    void cyrillicArabicHebrewUseTwoPointFiveUnlessCjkIsPresent() {
        assertThat(TokenEstimate.chi("привет")).isEqualTo(2.5);
        assertThat(TokenEstimate.chi("مرحبا")).isEqualTo(2.5);
        assertThat(TokenEstimate.chi("שלום")).isEqualTo(2.5);
        assertThat(TokenEstimate.of("привет")).isEqualTo(3); // ceil(6 / 2.5)
        assertThat(TokenEstimate.chi("привет 你")).isEqualTo(1.6);
    }

    @Test
    void lengthIsCountedInUtf16CodeUnits() {
        // An emoji outside the BMP is two UTF-16 units.
        assertThat(TokenEstimate.of("\uD83D\uDE00\uD83D\uDE00")).isEqualTo(1); // ceil(4 / 4)
        assertThat(TokenEstimate.INSTANCE.id()).isEqualTo("estimate-chi-v1");
    }
}
