package io.engram.jobs.embed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.engram.model.embed.Embedder;
import io.engram.model.embed.EmbeddingModel;
import java.util.List;
import org.junit.jupiter.api.Test;

class SharedEmbedderTest {

    private final SharedEmbedder factory = new SharedEmbedder(EmbeddingModel.ALL_MINILM_L6_V2, 100);

    @Test
    void operatorsOfOneJvmShareOneEmbedderUntilTheLastClosesIt() {
        Embedder first = factory.get();
        Embedder second = factory.get();
        assertSame(first, second);
        assertEquals(384, first.dimension());
        float[] vector = first.embedDocument("the same text").vector();
        first.close();
        // still held by the second operator: it answers, from the shared cache
        assertArrayEquals(vector, second.embedDocument("the same text").vector());
        assertEquals(0, second.embedDocumentBatch(List.of("the same text")).modelTexts());
        second.close();
        Embedder next = factory.get();
        assertNotSame(first, next);
        next.close();
    }
}
