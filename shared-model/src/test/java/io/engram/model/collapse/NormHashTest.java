package io.engram.model.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NormHashTest {

    @Test
    void briefVectors() {
        assertThat(NormHash.of("")).isEqualTo("cbf29ce484222325");
        assertThat(NormHash.of("Hello  World")).isEqualTo("779a65e7023cd2e7");
    }

    @Test
    void caseAndWhitespaceDoNotMatterButWordsDo() {
        assertThat(NormHash.of("  hello\t\nWORLD ")).isEqualTo(NormHash.of("Hello  World"));
        assertThat(NormHash.of("hello worlds")).isNotEqualTo(NormHash.of("hello world"));
    }

    @Test
    void hexHasNoZeroPadding() {
        // FNV-1a-64 of "a" (the published test vector): a code unit below 0x80 hashes like its byte.
        assertThat(NormHash.of("a")).isEqualTo("af63dc4c8601ec8c");
        for (int i = 0; i < 5000; i++) {
            String hex = NormHash.of("t" + i);
            assertThat(hex).doesNotStartWith("0").matches("[0-9a-f]{1,16}");
        }
    }
}
