package io.engram.retrieval;

import io.engram.model.partition.TierBudget;
import io.engram.model.retrieval.ContextAssembler;
import io.engram.model.retrieval.ContinuityTail;
import io.engram.model.retrieval.LearnedRelevance;
import io.engram.model.retrieval.LearnedTurnRelevance;
import io.engram.model.retrieval.NeighbourTurns;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.RelevanceFloor;
import io.engram.model.retrieval.SessionDiversity;
import io.engram.model.retrieval.SessionFocus;
import io.engram.model.retrieval.SpeakerMatch;
import io.engram.model.retrieval.WindowTurnFocus;
import java.util.Set;

/**
 * How contexts are assembled (docs/contracts.md §E.3–§E.4; docs/benchmarks.md has the measured effect of each).
 *
 * @param alpha2               α2, the soft-rule share of the budget
 * @param tail                 the recent raw tail of the asking session
 * @param memoryTypes          the record types retrieved to compete for the budget
 * @param candidates           how many memories are retrieved to compete for it
 * @param neighbours           the turns a retrieved turn brings with it, and their scores
 * @param duplicateContainment from which a memory counts as already said ({@link ContextAssembler})
 * @param floor                which retrieved memories are related to the query at all
 * @param focus                how much the hits of the sessions with most hits gain on the others
 * @param diversity            how much less a session's further hits score than its first
 * @param windows              whether windows of turns ({@link RecordType#WINDOW}) compete too, each hit bringing its turns
 * @param speakers             how much the hits said by a person the query names gain
 * @param windowFocus          which turns of a window hit come in at its score, and what the others score
 * @param turnRelevance        what scores every candidate by how it came (retrieved, a window's turn, a neighbour):
 *                             needs a retriever ranking by {@link LearnedRelevance}; null scores neighbours and
 *                             windows' turns from their hit's score ({@link #handScored()})
 */
public record ContextOptions(double alpha2, ContinuityTail tail, Set<RecordType> memoryTypes, int candidates,
                             NeighbourTurns neighbours, double duplicateContainment, RelevanceFloor floor,
                             SessionFocus focus, SessionDiversity diversity, boolean windows,
                             SpeakerMatch speakers, WindowTurnFocus windowFocus, LearnedTurnRelevance turnRelevance) {

    public static final ContextOptions DEFAULT = new ContextOptions(TierBudget.DEFAULT_ALPHA2, ContinuityTail.DEFAULT,
            ContextService.CONTEXT_TYPES, 50, new NeighbourTurns(2, 0.8), 0.8, new RelevanceFloor(0.9), SessionFocus.NONE,
            SessionDiversity.NONE, true, SpeakerMatch.NONE, new WindowTurnFocus(2, 0.5),
            LearnedTurnRelevance.DEFAULT);

    public ContextOptions {
        memoryTypes = Set.copyOf(memoryTypes);
        if (candidates < 1) {
            throw new IllegalArgumentException("candidates must be positive: " + candidates);
        }
    }

    public ContextOptions withMemoryTypes(Set<RecordType> types) {
        return new ContextOptions(alpha2, tail, types, candidates, neighbours, duplicateContainment, floor, focus, diversity, windows, speakers, windowFocus, turnRelevance);
    }

    public ContextOptions withCandidates(int n) {
        return new ContextOptions(alpha2, tail, memoryTypes, n, neighbours, duplicateContainment, floor, focus, diversity, windows, speakers, windowFocus, turnRelevance);
    }

    /** Without neighbouring turns. */
    public ContextOptions withoutNeighbours() {
        return withNeighbours(NeighbourTurns.NONE);
    }

    public ContextOptions withNeighbours(NeighbourTurns other) {
        return new ContextOptions(alpha2, tail, memoryTypes, candidates, other, duplicateContainment, floor, focus, diversity, windows, speakers, windowFocus, turnRelevance);
    }

    public ContextOptions withDiversity(SessionDiversity other) {
        return new ContextOptions(alpha2, tail, memoryTypes, candidates, neighbours, duplicateContainment, floor, focus, other, windows, speakers, windowFocus, turnRelevance);
    }

    public ContextOptions withFocus(SessionFocus other) {
        return new ContextOptions(alpha2, tail, memoryTypes, candidates, neighbours, duplicateContainment, floor, other, diversity, windows, speakers, windowFocus, turnRelevance);
    }

    /** With near-duplicates kept. */
    public ContextOptions keepingDuplicates() {
        return new ContextOptions(alpha2, tail, memoryTypes, candidates, neighbours, ContextAssembler.KEEP_DUPLICATES, floor,
                focus, diversity, windows, speakers, windowFocus, turnRelevance);
    }

    public ContextOptions withFloor(RelevanceFloor other) {
        return new ContextOptions(alpha2, tail, memoryTypes, candidates, neighbours, duplicateContainment, other, focus, diversity, windows, speakers, windowFocus, turnRelevance);
    }

    /** With windows of turns competing, or not. */
    public ContextOptions withWindows(boolean on) {
        return new ContextOptions(alpha2, tail, memoryTypes, candidates, neighbours, duplicateContainment, floor, focus, diversity, on, speakers, windowFocus, turnRelevance);
    }

    /** With hits said by a person the query names raised, or not. */
    public ContextOptions withSpeakers(SpeakerMatch other) {
        return new ContextOptions(alpha2, tail, memoryTypes, candidates, neighbours, duplicateContainment, floor, focus, diversity, windows, other, windowFocus, turnRelevance);
    }

    /** With a window's turns scored by {@code other} when it makes a context. */
    public ContextOptions withWindowFocus(WindowTurnFocus other) {
        return new ContextOptions(alpha2, tail, memoryTypes, candidates, neighbours, duplicateContainment, floor, focus, diversity, windows, speakers, other, turnRelevance);
    }

    /**
     * With neighbours and windows' turns scored from their hit's score by {@link NeighbourTurns} and
     * {@link WindowTurnFocus}: what a retriever that does not rank by {@link LearnedRelevance} needs.
     */
    public ContextOptions handScored() {
        return withTurnRelevance(null);
    }

    /** With every candidate scored by {@code other} (null: {@link #handScored()}). */
    public ContextOptions withTurnRelevance(LearnedTurnRelevance other) {
        return new ContextOptions(alpha2, tail, memoryTypes, candidates, neighbours, duplicateContainment, floor, focus, diversity, windows, speakers, windowFocus, other);
    }

    /** The record types searched: the memory types, and windows when on. */
    Set<RecordType> searched() {
        return windows ? WindowHits.withWindows(memoryTypes) : memoryTypes;
    }
}
