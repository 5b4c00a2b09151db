package io.engram.model.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DocumentCacheKeyTest {

    // Vectors from an independent implementation: python3 hashlib.sha256(raw + b"\x00" + tokenizer_id).
    @Test
    void matchesSha256OfRawZeroByteAndTokenizerId() {
        assertThat(DocumentCacheKey.of(new byte[0], "estimate-chi-v1"))
                .isEqualTo("08eaba85254894e0fd44f718191c094dd696eb8201bcdf2abfe5181251d99f9a");
        byte[] raw = "# Rules\n- Always answer in JSON.\n".getBytes(StandardCharsets.UTF_8);
        assertThat(DocumentCacheKey.of(raw, "estimate-chi-v1"))
                .isEqualTo("bc15be4880a231be4e8775e0e06db1955801514b90b670193da05ca5031ee896");
        assertThat(DocumentCacheKey.of(raw, "all-minilm-l6-v2"))
                .isEqualTo("10cede533804434310c5c2b6a04371219d3f7bddd9e8350e111b3cefc3a7b0da");
    }
}
