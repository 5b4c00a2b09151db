package io.engram.jobs.store;

import io.engram.jobs.PipelineConfig;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.facts.FactPolicy;
import io.engram.store.VectorEncoding;
import java.io.Serializable;
import java.time.Duration;

/**
 * What the writer is told: the embedding model, vector size and vector encoding the index is set up for, at most
 * {@code maxBulk} changes a bulk request or {@code maxDelay} of waiting, how long a forget is kept against
 * late arrivals, whether metrics are reported, the policy of memory facts, and how long after an expiry's or
 * a retention sweep's time the wall clock applies it when event time has not (null: never).
 */
public record StoreWriterSettings(String embeddingModel, int vectorDimension, VectorEncoding vectorEncoding, int maxBulk, Duration maxDelay,
                                  Duration forgetRetention, boolean metricsEnabled, FactPolicy facts,
                                  Duration wallClockGrace) implements Serializable {

    /**
     * The pipeline's settings, for vectors of its embedding model. Expiry and retention fall back on the wall
     * clock the out-of-orderness and idleness after their time, unless the run is bounded (its input ends, and
     * event time with it).
     */
    public static StoreWriterSettings of(PipelineConfig config) {
        return new StoreWriterSettings(config.embeddingModel().id(), EmbeddingModel.DIMENSION, config.vectorEncoding(),
                config.bulkSize(),
                config.bulkDelay(), config.stateTtl(), config.metricsEnabled(), config.facts(),
                config.bounded() ? null : config.outOfOrderness().plus(config.sourceIdleness()));
    }

    public StoreWriterSettings withIndex(String model, int dimension) {
        return new StoreWriterSettings(model, dimension, vectorEncoding, maxBulk, maxDelay, forgetRetention, metricsEnabled, facts,
                wallClockGrace);
    }

    public StoreWriterSettings withBulk(int size, Duration delay) {
        return new StoreWriterSettings(embeddingModel, vectorDimension, vectorEncoding, size, delay, forgetRetention, metricsEnabled, facts,
                wallClockGrace);
    }

    /** These settings with {@code policy}'s supersession and retention. */
    public StoreWriterSettings withFacts(FactPolicy policy) {
        return new StoreWriterSettings(embeddingModel, vectorDimension, vectorEncoding, maxBulk, maxDelay, forgetRetention,
                metricsEnabled, policy, wallClockGrace);
    }
}
