package io.engram.jobs.embed;

import io.engram.jobs.BatchingOperator;
import io.engram.jobs.store.StoreOp;
import io.engram.model.embed.Embedder;
import io.engram.model.embed.Embedding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Embeds the store changes that need a vector, batching across records ({@link BatchingOperator}: up to
 * {@code maxBatch} texts or {@code maxDelay}). Changes leave in arrival order, those without text to embed
 * included. The shared embedder's content-hash cache means a replayed or repeated text is not embedded twice.
 */
public final class EmbeddingOperator extends BatchingOperator<StoreOp> {

    private static final long serialVersionUID = 1L;

    private final EmbedderFactory embedderFactory;
    private final int maxBatch;

    private transient Embedder embedder;
    private transient int textsBuffered;

    public EmbeddingOperator(EmbedderFactory embedderFactory, int maxBatch, Duration maxDelay) {
        super(maxDelay);
        this.embedderFactory = embedderFactory;
        this.maxBatch = maxBatch;
    }

    @Override
    public void open() throws Exception {
        super.open();
        embedder = embedderFactory.get();
    }

    @Override
    public void processElement(StreamRecord<StoreOp> element) {
        add(element.getValue(), element);
    }

    @Override
    protected boolean countAndCheckFull(StoreOp added) {
        if (added.needsEmbedding()) {
            textsBuffered++;
        }
        return textsBuffered >= maxBatch;
    }

    @Override
    protected void process(List<StreamRecord<StoreOp>> records) {
        List<String> texts = new ArrayList<>();
        for (StreamRecord<StoreOp> e : records) {
            if (e.getValue().needsEmbedding()) {
                texts.add(e.getValue().text());
            }
        }
        List<Embedding> vectors = texts.isEmpty() ? List.of() : embedder.embedDocuments(texts);
        int next = 0;
        for (StreamRecord<StoreOp> e : records) {
            StoreOp op = e.getValue();
            output.collect(op.needsEmbedding() ? embedded(e, vectors.get(next++)) : e);
        }
        textsBuffered = 0;
    }

    private static StreamRecord<StoreOp> embedded(StreamRecord<StoreOp> e, Embedding embedding) {
        return e.replace(e.getValue().embedded(embedding.vector(), embedding.tokens()));
    }

    @Override
    public void close() throws Exception {
        if (embedder != null) {
            embedder.close();
        }
        super.close();
    }
}
