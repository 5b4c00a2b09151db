package io.engram.jobs.embed;

import io.engram.jobs.BatchingOperator;
import io.engram.jobs.EngramMetrics;
import io.engram.jobs.PipelineConfig;
import io.engram.jobs.store.StoreChange;
import io.engram.jobs.store.StoreChange.Upsert;
import io.engram.model.embed.EmbeddedBatch;
import io.engram.model.embed.Embedder;
import io.engram.model.embed.Embedding;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Embeds the store changes that need a vector, batching across records ({@link BatchingOperator}: up to
 * {@code maxBatch} texts or {@code maxDelay}). Changes leave in arrival order, those without text to embed
 * included. The shared embedder's content-hash cache means a replayed or repeated text is not embedded twice.
 */
public final class EmbeddingOperator extends BatchingOperator<StoreChange> {

    private static final long serialVersionUID = 1L;

    private final EmbedderFactory embedderFactory;
    private final int maxBatch;
    private final boolean metricsEnabled;

    private transient Embedder embedder;
    private transient int textsBuffered;
    private transient Histogram batchTexts;
    private transient Histogram batchMillis;
    private transient Counter textsEmbedded;
    private transient Counter cacheHits;
    private transient Counter cacheMisses;
    private transient Counter modelTexts;

    /** The largest batch of texts sent to the model, how long a partial batch may wait, whether metrics are on. */
    public record Settings(int maxBatch, Duration maxDelay, boolean metricsEnabled) implements Serializable {

        /** The pipeline's settings. */
        public static Settings of(PipelineConfig config) {
            return new Settings(config.embedBatch(), config.embedDelay(), config.metricsEnabled());
        }
    }

    public EmbeddingOperator(EmbedderFactory embedderFactory, Settings settings) {
        super(settings.maxDelay());
        this.embedderFactory = embedderFactory;
        this.maxBatch = settings.maxBatch();
        this.metricsEnabled = settings.metricsEnabled();
    }

    @Override
    public void open() throws Exception {
        super.open();
        embedder = embedderFactory.get();
        EngramMetrics metrics = EngramMetrics.of(getMetricGroup(), metricsEnabled);
        batchTexts = metrics.histogram("embed_batch_texts");
        batchMillis = metrics.histogram("embed_batch_millis");
        textsEmbedded = metrics.counter("embed_texts");
        cacheHits = metrics.counter("embed_cache_hits");
        cacheMisses = metrics.counter("embed_cache_misses");
        modelTexts = metrics.counter("embed_model_texts");
    }

    @Override
    public void processElement(StreamRecord<StoreChange> element) {
        add(element.getValue(), element);
    }

    /** An upsert still without its vector. */
    private static boolean needsEmbedding(StoreChange change) {
        return change instanceof Upsert upsert && upsert.needsEmbedding();
    }

    @Override
    protected boolean countAndCheckFull(StoreChange added) {
        if (needsEmbedding(added)) {
            textsBuffered++;
        }
        return textsBuffered >= maxBatch;
    }

    @Override
    protected void process(List<StreamRecord<StoreChange>> records) {
        List<String> texts = new ArrayList<>();
        for (StreamRecord<StoreChange> e : records) {
            if (needsEmbedding(e.getValue())) {
                texts.add(((Upsert) e.getValue()).record().text());
            }
        }
        List<Embedding> vectors = texts.isEmpty() ? List.of() : embed(texts);
        int next = 0;
        for (StreamRecord<StoreChange> e : records) {
            output.collect(needsEmbedding(e.getValue()) ? embedded(e, vectors.get(next++)) : e);
        }
        textsBuffered = 0;
    }

    private List<Embedding> embed(List<String> batch) {
        long start = System.nanoTime();
        EmbeddedBatch embedded = embedder.embedDocumentBatch(batch);
        batchMillis.update((System.nanoTime() - start) / 1_000_000);
        batchTexts.update(batch.size());
        textsEmbedded.inc(batch.size());
        cacheHits.inc(embedded.cacheHits());
        cacheMisses.inc(batch.size() - embedded.cacheHits());
        modelTexts.inc(embedded.modelTexts());
        return embedded.embeddings();
    }

    private static StreamRecord<StoreChange> embedded(StreamRecord<StoreChange> e, Embedding embedding) {
        return e.replace(((Upsert) e.getValue()).embedded(embedding.vector(), embedding.tokens()));
    }

    @Override
    public void close() throws Exception {
        if (embedder != null) {
            embedder.close();
        }
        super.close();
    }
}
