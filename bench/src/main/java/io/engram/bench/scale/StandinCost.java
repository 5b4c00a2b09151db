package io.engram.bench.scale;

import io.engram.client.Payload;
import io.engram.model.embed.Embedder;
import io.engram.model.embed.EmbeddingModel;
import java.util.ArrayList;
import java.util.List;

/**
 * What the stand-in embedder itself costs per text, on the bench's own texts, in this JVM: the part of the job's
 * CPU per record that the model would replace, so that the rest is the pipeline's outside the model.
 */
final class StandinCost {

    private static final int TEXTS = 20_000;

    private StandinCost() {
    }

    static double microsPerText() {
        List<String> texts = new ArrayList<>(TEXTS);
        ScaleCorpus.Rounds rounds = new ScaleCorpus.Rounds(ScaleCorpus.Tenant.of(0, TEXTS));
        ScaleCorpus.EventClock clock = new ScaleCorpus.EventClock(ScaleRun.T0);
        while (rounds.hasNext()) {
            for (Payload p : rounds.next(clock)) {
                texts.add(p.json().get("text").asText());
            }
        }
        try (Embedder standin = EmbeddingModel.HASHED_STANDIN.embedder()) {
            standin.embedDocuments(texts.subList(0, 2_000)); // warm-up
            long t0 = System.nanoTime();
            for (int i = 0; i < texts.size(); i += 64) {
                standin.embedDocuments(texts.subList(i, Math.min(i + 64, texts.size())));
            }
            return (System.nanoTime() - t0) / 1e3 / texts.size();
        }
    }
}
