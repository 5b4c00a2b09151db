package io.engram.model.compaction;

import java.util.List;

/**
 * The generation guard (docs/contracts.md §C.7): a merge is refused when two or more of its participants
 * already have {@code generation > maxGeneration} (default 2). A merge's own generation is
 * {@code max(participants) + 1}.
 */
public record GenerationGuard(int maxGeneration) {

    public static final GenerationGuard DEFAULT = new GenerationGuard(2);

    public boolean refuses(List<Integer> participantGenerations) {
        return participantGenerations.stream().filter(g -> g > maxGeneration).count() >= 2;
    }

    public static int mergedGeneration(List<Integer> participantGenerations) {
        return participantGenerations.stream().mapToInt(Integer::intValue).max().orElse(0) + 1;
    }
}
