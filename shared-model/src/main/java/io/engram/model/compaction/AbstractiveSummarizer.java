package io.engram.model.compaction;

import java.util.List;
import java.util.Optional;

/**
 * An optional abstractive summariser (an ONNX seq2seq model given by path, for instance). No such model is
 * available offline here; the extractive summary is the default. To plug one in, implement this interface:
 * run the encoder over the joined source texts, decode greedily or with beam search, and return the text with
 * the decoder's confidence {@code exp(mean log p(token_i | token_<i, sources))}. {@link SummaryGate} then
 * checks it in the embedding space and falls back to the extractive summary when it drifts.
 */
public interface AbstractiveSummarizer {

    /** A generated summary and the decoder's confidence in it (0..1). */
    record Draft(String text, double decoderConfidence) {
    }

    /** A summary of the texts, in order; empty when the model declines. */
    Optional<Draft> summarize(List<String> sources);
}
