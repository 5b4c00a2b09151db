package io.engram.model.collapse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class BigramDiversityTest {

    @Test
    void briefVector() {
        assertThat(BigramDiversity.of("a b a b a b")).isEqualTo(0.4);
    }

    @Test
    void fewerThanTwoWordsIsOne() {
        assertThat(BigramDiversity.of("")).isEqualTo(1.0);
        assertThat(BigramDiversity.of("   ")).isEqualTo(1.0);
        assertThat(BigramDiversity.of("word")).isEqualTo(1.0);
    }

    @Test
    void caseAndSpacingAreIgnored() {
        assertThat(BigramDiversity.of("  The user   the USER\tthe user ")).isEqualTo(BigramDiversity.of("the user the user the user"));
        // words: the user the user the user → 5 pairs, distinct {the user, user the} = 2
        assertThat(BigramDiversity.of("the user the user the user")).isCloseTo(0.4, within(1e-12));
        assertThat(BigramDiversity.of("every word pair here differs")).isEqualTo(1.0);
    }
}
