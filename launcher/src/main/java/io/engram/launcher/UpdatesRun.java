package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.launcher.FactUpdates.Fact;
import io.engram.launcher.FactUpdates.Means;
import io.engram.launcher.FactUpdates.Memory;
import io.engram.launcher.FactUpdates.Version;
import io.engram.launcher.FactUpdates.Workload;
import io.engram.service.ResponsesJson;
import io.engram.store.RecordIds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One run of {@code ./engram eval updates} against a live product: writes the workload through {@code POST
 * /v1/memories}, waits until the pipeline has stored it, asks {@code POST /v1/context} about every fact now and at
 * past times ({@code as_of}), and watches the expiring memories leave ({@code GET /v1/memories/{id}} answering 404).
 * Expiry goes by event time: while it watches, another tenant writes a memory a second, as live traffic would,
 * so that event time moves on.
 */
final class UpdatesRun {

    static final String TENANT = "updates";
    /** The tenant whose writes move event time on while the expiring memories are watched. */
    static final String TRAFFIC = "traffic";
    private static final int BATCH = 500;
    private static final Duration STORE_DEADLINE = Duration.ofMinutes(5);
    /** How long the replaced versions may take to show as superseded once every memory is stored. */
    private static final Duration MARK_DEADLINE = Duration.ofSeconds(30);

    /** The answers to one kind of question: right when the true version is in the context and no other is. */
    static final class Tally {
        int questions;
        int right;
        /** The true version was in the context. */
        int found;
        /** Another version of the fact was in it. */
        int stale;
        final Map<Means, int[]> byMeans = new EnumMap<>(Means.class); // means -> {questions, right}

        void add(Means means, boolean foundIt, boolean staleToo) {
            questions++;
            found += foundIt ? 1 : 0;
            stale += staleToo ? 1 : 0;
            boolean ok = foundIt && !staleToo;
            right += ok ? 1 : 0;
            int[] m = byMeans.computeIfAbsent(means, x -> new int[2]);
            m[0]++;
            m[1] += ok ? 1 : 0;
        }

        static double share(int n, int of) {
            return of == 0 ? 0 : (double) n / of;
        }
    }

    /**
     * The expiring memories: how many, how many were gone within the freshness of their {@code expires_at}, how
     * many at all, and how long after it the median and the last one went (NaN: none went).
     */
    record Expiry(int memories, int goneInTime, int gone, double medianSecondsLate, double maxSecondsLate) {
    }

    /** What a run measured; {@code unmarked}: replaced versions still not marked superseded when the questions began. */
    record Result(Tally current, Tally asOf, Expiry expiry, int unmarked, double storeSeconds, double meanTokens) {
    }

    private final TenantApi api;
    private final TenantApi traffic;
    private final int budget;
    private final Consumer<String> progress;

    UpdatesRun(TenantApi api, TenantApi traffic, int budget, Consumer<String> progress) {
        this.api = api;
        this.traffic = traffic;
        this.budget = budget;
        this.progress = progress;
    }

    /**
     * Writes {@code w}'s history, waits until it is stored (and, if {@code superseding}, the replaced versions marked),
     * asks about every fact, then writes the expiring notes and watches them go.
     */
    Result run(Workload w, boolean superseding, Duration expiresIn, Duration freshness)
            throws IOException, InterruptedException {
        long started = System.nanoTime();
        write(w.memories());
        requireAll(await(ids(w.memories()), answer -> answer.status() == 200, STORE_DEADLINE), "stored");
        Set<String> unmarked = Set.of();
        if (superseding) {
            Set<String> replaced = new LinkedHashSet<>();
            w.facts().stream().filter(f -> f.means() != Means.VALIDITY).forEach(f -> f.versions()
                    .subList(0, f.versions().size() - 1).forEach(v -> replaced.add(v.memoryId())));
            unmarked = await(replaced, answer -> answer.status() == 200
                    && answer.body().path("superseded_by").isTextual(), MARK_DEADLINE);
            progress.accept((replaced.size() - unmarked.size()) + " of " + replaced.size() + " replaced versions marked"
                    + " superseded" + (unmarked.isEmpty() ? "" : "; not: " + unmarked));
        }
        double storeSeconds = (System.nanoTime() - started) / 1e9;
        progress.accept(String.format(Locale.ROOT, "stored in %.1f s; asking about %d facts, now and at past times",
                storeSeconds, w.facts().size()));
        Tally current = new Tally();
        Tally asOf = new Tally();
        double tokens = 0;
        for (Fact f : w.facts()) {
            JsonNode now = context(f, null);
            tokens += now.path("tokens_used").asInt();
            score(current, f, f.current(), now);
            for (int i = 0; i + 1 < f.versions().size(); i++) {
                score(asOf, f, f.versions().get(i), context(f, f.pastTime(i)));
            }
        }
        List<Memory> expiring = w.expiring(Instant.now(), expiresIn);
        write(expiring);
        requireAll(await(ids(expiring), answer -> answer.status() == 200, STORE_DEADLINE), "stored to expire");
        return new Result(current, asOf, expiry(expiring, freshness), unmarked.size(), storeSeconds,
                tokens / w.facts().size());
    }

    private static Set<String> ids(List<Memory> memories) {
        Set<String> ids = new LinkedHashSet<>();
        memories.forEach(m -> ids.add(m.memoryId()));
        return ids;
    }

    private void write(List<Memory> memories) throws IOException, InterruptedException {
        write(api, memories);
    }

    private static void write(TenantApi api, List<Memory> memories) throws IOException, InterruptedException {
        for (int from = 0; from < memories.size(); from += BATCH) {
            ObjectNode body = ResponsesJson.JSON.createObjectNode();
            ArrayNode records = body.putArray("records");
            memories.subList(from, Math.min(memories.size(), from + BATCH)).forEach(m -> records.add(payload(m)));
            TenantApi.Answer answer = api.post("/v1/memories", body);
            if (answer.status() != 202 || !answer.body().path("rejected").isEmpty()) {
                throw new IllegalStateException("POST /v1/memories answered " + answer.status() + ": " + answer.body());
            }
        }
    }

    /** A memory as {@code POST /v1/memories} takes it. */
    static ObjectNode payload(Memory m) {
        ObjectNode o = ResponsesJson.JSON.createObjectNode().put("memory_id", m.memoryId()).put("user_id", m.userId())
                .put("text", m.text()).put("ts", m.ts().toString());
        if (m.key() != null) {
            o.put("key", m.key());
        }
        if (!m.supersedes().isEmpty()) {
            m.supersedes().forEach(o.putArray("supersedes")::add);
        }
        putTime(o, "valid_from", m.validFrom());
        putTime(o, "valid_until", m.validUntil());
        putTime(o, "expires_at", m.expiresAt());
        return o;
    }

    private static void putTime(ObjectNode o, String field, Instant t) {
        if (t != null) {
            o.put(field, t.toString());
        }
    }

    /** Polls each memory until {@code done} holds for its {@code GET} or {@code deadline} passes: those it never held for. */
    private Set<String> await(Set<String> memoryIds, Predicate<TenantApi.Answer> done, Duration deadline)
            throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        Set<String> pending = new LinkedHashSet<>(memoryIds);
        while (true) {
            pending.removeIf(id -> done.test(get(id)));
            if (pending.isEmpty() || System.nanoTime() > end) {
                return pending;
            }
            Thread.sleep(500);
        }
    }

    private void requireAll(Set<String> pending, String what) {
        if (!pending.isEmpty()) {
            throw new IllegalStateException(pending.size() + " memories not " + what + " within " + STORE_DEADLINE
                    + ", among them " + pending.iterator().next());
        }
        progress.accept("every memory " + what);
    }

    private TenantApi.Answer get(String memoryId) {
        try {
            return api.get("/v1/memories/" + TenantApi.segment(memoryId));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private JsonNode context(Fact f, Instant asOf) throws IOException, InterruptedException {
        ObjectNode request = ResponsesJson.JSON.createObjectNode().put("query", f.question()).put("budget_tokens", budget)
                .put("user_id", f.userId());
        putTime(request, "as_of", asOf);
        TenantApi.Answer answer = api.post("/v1/context", request);
        if (answer.status() != 200) {
            throw new IllegalStateException("POST /v1/context answered " + answer.status() + ": " + answer.body());
        }
        return answer.body();
    }

    private static void score(Tally tally, Fact f, Version truth, JsonNode context) {
        Set<String> included = new HashSet<>();
        context.path("included").forEach(i -> included.add(i.path("id").asText()));
        boolean stale = f.versions().stream().anyMatch(v -> v != truth
                && included.contains(RecordIds.memory(TENANT, v.memoryId())));
        tally.add(f.means(), included.contains(RecordIds.memory(TENANT, truth.memoryId())), stale);
    }

    /** Watches each stored expiring memory until it is gone, or until six times {@code freshness} past the last expiry. */
    private Expiry expiry(List<Memory> expiring, Duration freshness) throws IOException, InterruptedException {
        Map<String, Memory> watched = new LinkedHashMap<>();
        expiring.forEach(m -> watched.put(m.memoryId(), m));
        List<Double> lateSeconds = new ArrayList<>();
        Instant giveUp = expiring.stream().map(Memory::expiresAt).max(Instant::compareTo).orElse(Instant.now())
                .plus(freshness.multipliedBy(6));
        progress.accept("watching " + expiring.size() + " memories expire (until " + giveUp + " at the latest)");
        long lastTick = 0;
        while (!watched.isEmpty() && Instant.now().isBefore(giveUp)) {
            if (System.nanoTime() - lastTick > 1_000_000_000L) {
                lastTick = System.nanoTime();
                Instant now = Instant.now();
                write(traffic, List.of(new Memory("tick-" + now.toEpochMilli(), "clock", "A tick of live traffic.", now,
                        null, List.of(), null, null, null)));
            }
            for (var it = watched.values().iterator(); it.hasNext(); ) {
                Memory m = it.next();
                if (get(m.memoryId()).status() == 404) {
                    lateSeconds.add(Math.max(0, Duration.between(m.expiresAt(), Instant.now()).toMillis() / 1e3));
                    it.remove();
                }
            }
            Thread.sleep(250);
        }
        long inTime = lateSeconds.stream().filter(s -> s <= freshness.toSeconds()).count();
        double[] sorted = lateSeconds.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return new Expiry(expiring.size(), (int) inTime, sorted.length,
                sorted.length == 0 ? Double.NaN : sorted[(sorted.length - 1) / 2],
                sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1]);
    }
}
