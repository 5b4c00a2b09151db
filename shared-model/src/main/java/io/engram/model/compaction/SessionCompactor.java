package io.engram.model.compaction;

import io.engram.model.retrieval.ContinuityTail;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Compaction of one session (docs/contracts.md §C): the recent raw tail stays verbatim; when at least k compactable
 * turns (older than the tail) wait, they are cut into ⌈n/k⌉ contiguous clusters and every cluster of two or
 * more turns becomes an extractive summary; when {@code fanIn} summaries of one generation pile up they are
 * merged into one of the next generation, under the generation guard and with the merge information floor
 * measured. Pure: the caller keeps the state and writes the results.
 */
public final class SessionCompactor {

    /** A raw turn of the session. */
    public record Turn(String turnId, long seq, String role, String text, Instant ts, int tokens)
            implements ContinuityTail.Turn {
        @Override
        public boolean isUser() {
            return "user".equals(role);
        }

        @Override
        public boolean isAssistant() {
            return "assistant".equals(role);
        }
    }

    /** A summary of turns (generation 1) or of summaries (generation ≥ 2). */
    public record SummaryRecord(String id, String text, float[] embedding, List<String> sourceRefs, int generation,
                                PreservationScore score, Instant from, Instant to, int sourceTokens,
                                int summaryTokens) {
        public SummaryRecord {
            sourceRefs = List.copyOf(sourceRefs);
        }
    }

    /**
     * What one compaction pass decided.
     *
     * @param summaries        new summaries to write
     * @param compactedTurnIds raw turns now covered by a summary: they leave the session's state
     * @param retiredSummaryIds summaries merged into a higher generation
     * @param declinedClusters clusters whose summary was not shorter than its turns (they stay raw)
     * @param guardRefusals    merges the generation guard refused
     * @param floorViolations  merges below the information floor (counted, not blocked)
     */
    public record Outcome(List<SummaryRecord> summaries, List<String> compactedTurnIds, List<String> retiredSummaryIds,
                          int declinedClusters, int guardRefusals, int floorViolations) {
    }

    /** Settings. */
    public record Options(int k, ContinuityTail tail, int fanIn, GenerationGuard guard, MergeInformationFloor floor) {
        public static final Options DEFAULT = new Options(Clusters.DEFAULT_K, ContinuityTail.DEFAULT, 4,
                GenerationGuard.DEFAULT, MergeInformationFloor.DEFAULT);
    }

    private final ExtractiveSummarizer summarizer;
    private final Options options;

    public SessionCompactor(ExtractiveSummarizer summarizer, Options options) {
        this.summarizer = summarizer;
        this.options = options;
    }

    /**
     * @param turns     the session's uncompacted raw turns, sorted by seq
     * @param summaries the session's live summaries, oldest first
     * @param idle      the session went quiet: compact what waits even below k (clusters of at least two)
     */
    public Outcome compact(String tenantId, String sessionId, List<Turn> turns, List<SummaryRecord> summaries,
                           boolean idle) {
        int tailStart = options.tail().start(turns, Turn::tokens);
        List<Turn> compactable = turns.subList(0, tailStart);
        int k = idle ? Math.max(2, Math.min(options.k(), compactable.size())) : options.k();
        List<SummaryRecord> created = new ArrayList<>();
        List<String> compacted = new ArrayList<>();
        int declined = 0;
        for (int[] range : Clusters.of(compactable.size(), k)) {
            List<Turn> cluster = compactable.subList(range[0], range[1]);
            if (cluster.size() < 2) {
                continue; // a singleton is not compacted
            }
            Optional<ExtractiveSummarizer.Summary> summary = summarizer.summarize(cluster.stream().map(Turn::text).toList());
            if (summary.isEmpty()) {
                declined++;
                continue;
            }
            List<String> ids = cluster.stream().map(Turn::turnId).toList();
            created.add(record(tenantId, sessionId, summary.get(), ids, 1, cluster.get(0).ts(),
                    cluster.get(cluster.size() - 1).ts()));
            compacted.addAll(ids);
        }

        List<SummaryRecord> live = new ArrayList<>(summaries);
        live.addAll(created);
        List<String> retired = new ArrayList<>();
        int refusals = 0;
        int violations = 0;
        boolean merged = true;
        while (merged) {
            merged = false;
            for (int generation = 1; generation <= options.guard().maxGeneration() + 2 && !merged; generation++) {
                final int g = generation;
                List<SummaryRecord> same = live.stream().filter(s -> s.generation() == g).toList();
                if (same.size() < options.fanIn()) {
                    continue;
                }
                List<SummaryRecord> participants = same.subList(0, options.fanIn());
                List<Integer> generations = participants.stream().map(SummaryRecord::generation).toList();
                if (options.guard().refuses(generations)) {
                    refusals++;
                    continue;
                }
                Optional<ExtractiveSummarizer.Summary> summary =
                        summarizer.summarize(participants.stream().map(SummaryRecord::text).toList());
                if (summary.isEmpty()) {
                    continue;
                }
                Set<String> refs = new LinkedHashSet<>();
                List<MergeInformationFloor.Participant> floorInput = new ArrayList<>();
                for (SummaryRecord p : participants) {
                    refs.add(p.id());
                    refs.addAll(p.sourceRefs());
                    floorInput.add(new MergeInformationFloor.Participant(p.id(), p.text(), p.sourceRefs()));
                }
                SummaryRecord next = record(tenantId, sessionId, summary.get(), new ArrayList<>(refs),
                        GenerationGuard.mergedGeneration(generations), participants.get(0).from(),
                        participants.get(participants.size() - 1).to());
                if (!options.floor().check(next.text(), next.sourceRefs(), floorInput).passed()) {
                    violations++;
                }
                live.removeAll(participants);
                live.add(next);
                participants.forEach(p -> retired.add(p.id()));
                created.removeAll(participants);
                created.add(next);
                merged = true;
            }
        }
        return new Outcome(created, compacted, retired, declined, refusals, violations);
    }

    /**
     * The rule applied as each of {@code turns} (sorted by seq) arrives, as the pipeline applies it: a window
     * closes as soon as k turns wait before the tail, so a long session gives windows of k turns, not ⌈n/k⌉
     * clusters of all of them. With {@code idle}, what still waits at the end is compacted as a quiet session's.
     * The outcome is the sum of the steps: summaries made and merged away in between are in neither list.
     */
    public Outcome compactAsTheyCome(String tenantId, String sessionId, List<Turn> turns, List<SummaryRecord> summaries,
                                     boolean idle) {
        List<Turn> pending = new ArrayList<>();
        List<SummaryRecord> live = new ArrayList<>(summaries);
        List<SummaryRecord> created = new ArrayList<>();
        Set<String> retired = new LinkedHashSet<>();
        List<String> compacted = new ArrayList<>();
        int declined = 0;
        int refusals = 0;
        int violations = 0;
        for (int i = 0; i < turns.size() || (idle && i == turns.size()); i++) {
            boolean quiet = i == turns.size();
            if (!quiet) {
                pending.add(turns.get(i));
            }
            Outcome step = compact(tenantId, sessionId, pending, live, quiet);
            retired.addAll(step.retiredSummaryIds());
            live.removeIf(s -> retired.contains(s.id()));
            live.addAll(step.summaries());
            created.addAll(step.summaries());
            compacted.addAll(step.compactedTurnIds());
            pending.removeIf(t -> step.compactedTurnIds().contains(t.turnId()));
            declined += step.declinedClusters();
            refusals += step.guardRefusals();
            violations += step.floorViolations();
        }
        created.removeIf(s -> retired.contains(s.id()));
        List<String> retiredGiven = summaries.stream().map(SummaryRecord::id).filter(retired::contains).toList();
        return new Outcome(created, compacted, retiredGiven, declined, refusals, violations);
    }

    private static SummaryRecord record(String tenantId, String sessionId, ExtractiveSummarizer.Summary s,
                                        List<String> sourceRefs, int generation, Instant from, Instant to) {
        return new SummaryRecord(SummaryId.of(tenantId, sessionId, sourceRefs), s.text(), s.embedding(), sourceRefs,
                generation, s.score(), from, to, s.sourceTokens(), s.summaryTokens());
    }
}
