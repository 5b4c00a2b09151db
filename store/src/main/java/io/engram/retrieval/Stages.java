package io.engram.retrieval;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where the time of one read went, stage by stage (embedding the query, the searches, the rules, the neighbours,
 * the assembly): what the service answers in a {@code Server-Timing} header, so a slow context says why.
 */
public final class Stages {

    private final Map<String, Long> nanos = new LinkedHashMap<>();
    private long last = System.nanoTime();

    /** Ends the stage named {@code stage}: the time since the previous lap (or since creation) is its. */
    public void lap(String stage) {
        long now = System.nanoTime();
        nanos.merge(stage, now - last, Long::sum);
        last = now;
    }

    /** Each stage's time in nanoseconds, in the order the stages first ended. */
    public Map<String, Long> nanos() {
        return Map.copyOf(nanos);
    }

    /** The stages as a {@code Server-Timing} header value: {@code embed;dur=5.21, search;dur=20.04, …} in ms. */
    public String serverTiming() {
        return nanos.entrySet().stream().map(e -> String.format(Locale.ROOT, "%s;dur=%.2f", e.getKey(), e.getValue() / 1e6))
                .collect(Collectors.joining(", "));
    }
}
