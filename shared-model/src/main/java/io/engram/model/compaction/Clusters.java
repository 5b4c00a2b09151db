package io.engram.model.compaction;

import java.util.ArrayList;
import java.util.List;

/**
 * Cluster formation (docs/contracts.md §C.3): n ≥ k compactable turns split into c = ⌈n/k⌉ contiguous clusters, turn i
 * going to cluster ⌊i·c/n⌋. Fewer than k turns are not compacted yet.
 */
public final class Clusters {

    public static final int DEFAULT_K = 20;

    private Clusters() {
    }

    /** Half-open index ranges [from, to) of the clusters of {@code n} turns, empty when n &lt; k. */
    public static List<int[]> of(int n, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("k must be positive: " + k);
        }
        List<int[]> clusters = new ArrayList<>();
        if (n < k) {
            return clusters;
        }
        int c = (n + k - 1) / k;
        int start = 0;
        for (int cluster = 0; cluster < c; cluster++) {
            int end = start;
            while (end < n && (long) end * c / n == cluster) {
                end++;
            }
            clusters.add(new int[] {start, end});
            start = end;
        }
        return clusters;
    }
}
