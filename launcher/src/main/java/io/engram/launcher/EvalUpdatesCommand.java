package io.engram.launcher;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.launcher.FactUpdates.Means;
import io.engram.launcher.FactUpdates.Workload;
import io.engram.launcher.UpdatesRun.Result;
import io.engram.launcher.UpdatesRun.Tally;
import io.engram.service.ResponsesJson;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * How current contexts are when facts change: a generated knowledge-update workload ({@link FactUpdates}) written
 * to the live product ({@code ./engram up}'s, on the embedded stack) through {@code POST /v1/memories}, and every
 * fact asked through {@code POST /v1/context}, now and at past times; then the same with supersession off
 * ({@code memories.supersession=false}), to show what it buys.
 */
@Command(name = "updates", mixinStandardHelpOptions = true,
        description = "Whether contexts hold the current value of facts that change, and the value at a past time, through the live product.")
final class EvalUpdatesCommand implements Callable<Integer> {

    static final int OTHER_PER_USER = 3;
    /**
     * How soon after its {@code expires_at} an expired record must be gone while events keep arriving: expiry runs
     * once the watermark passes it (docs/contracts.md, "Expiry"), which trails the newest event by the 5 s of
     * {@code watermark.out-of-orderness}, and a write is searchable within 2.6 s p99 (docs/operations.md,
     * "Freshness"); with the eval's one event a second, 10 s.
     */
    static final Duration EXPIRY_FRESHNESS = Duration.ofSeconds(10);

    @Spec
    CommandSpec spec;

    @Option(names = "--users", paramLabel = "N", description = "Users, at most 70 (default: ${DEFAULT-VALUE}).")
    int users = 60;

    @Option(names = "--facts-per-user", paramLabel = "N",
            description = "Facts per user, at most 8; three other memories per user beside them (default: ${DEFAULT-VALUE}).")
    int factsPerUser = 6;

    @Option(names = "--seed", description = "The generator's seed (default: ${DEFAULT-VALUE}).")
    long seed = 43;

    @Option(names = "--budget", paramLabel = "TOKENS", description = "Each context's budget (default: ${DEFAULT-VALUE}).")
    int budget = 500;

    @Option(names = "--expires-in", paramLabel = "SECONDS",
            description = "How long after it is written a user's note expires (default: ${DEFAULT-VALUE}).")
    int expiresIn = 30;

    @Option(names = "--supersession", paramLabel = "on|off|both",
            description = "Run with supersession on, off, or both one after the other (default: ${DEFAULT-VALUE}).")
    String supersession = "both";

    @Option(names = "--json", description = "Print the results as JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        Workload workload = workload();
        Map<String, Result> results = new LinkedHashMap<>();
        for (boolean on : supersession.equals("both") ? List.of(true, false) : List.of(supersession.equals("on"))) {
            results.put(on ? "supersession_on" : "supersession_off", run(workload, on, spec.commandLine().getErr()));
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(ResponsesJson.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json(workload, results)));
        } else {
            table(out, workload, results);
        }
        out.flush();
        return 0;
    }

    /** The workload the options ask for; a wrong option is one line naming it. */
    private Workload workload() {
        if (!List.of("on", "off", "both").contains(supersession)) {
            throw new ParameterException(spec.commandLine(), "--supersession must be on, off or both: " + supersession);
        }
        if (budget < 1 || expiresIn < 1) {
            throw new ParameterException(spec.commandLine(), "--budget and --expires-in must be positive");
        }
        try {
            return FactUpdates.generate(seed, users, factsPerUser, OTHER_PER_USER);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--users, --facts-per-user: " + e.getMessage());
        }
    }

    private Result run(Workload workload, boolean on, PrintWriter progress) throws Exception {
        Properties settings = new Properties();
        settings.setProperty("memories.supersession", String.valueOf(on));
        // one client asking as fast as it can: not what the per-key rate limit is for
        settings.setProperty("service.rate-limit.per-second", "100000");
        settings.setProperty("service.rate-limit.burst", "100000");
        say(progress, "starting the product with memories.supersession=" + on + " ...");
        try (LiveProduct product = LiveProduct.start(Optional.empty(), 0, List.of(UpdatesRun.TENANT, UpdatesRun.TRAFFIC),
                settings, line -> say(progress, line))) {
            TenantApi api = new TenantApi(product.apiUrl(), product.keys().get(UpdatesRun.TENANT));
            TenantApi traffic = new TenantApi(product.apiUrl(), product.keys().get(UpdatesRun.TRAFFIC));
            say(progress, "writing " + workload.memories().size() + " memories of " + workload.facts().size() + " facts");
            return new UpdatesRun(api, traffic, budget, line -> say(progress, line)).run(workload, on,
                    Duration.ofSeconds(expiresIn), EXPIRY_FRESHNESS);
        }
    }

    private static void say(PrintWriter progress, String line) {
        progress.println("[eval] " + line);
        progress.flush();
    }

    private ObjectNode json(Workload w, Map<String, Result> results) {
        ObjectNode root = ResponsesJson.JSON.createObjectNode().put("seed", seed).put("users", users)
                .put("facts", w.facts().size())
                .put("updates", w.facts().stream().mapToInt(f -> f.versions().size() - 1).sum())
                .put("memories", w.memories().size()).put("expiring", w.notes().size()).put("budget_tokens", budget)
                .put("expires_in_seconds", expiresIn).put("freshness_seconds", EXPIRY_FRESHNESS.toSeconds());
        results.forEach((name, r) -> {
            ObjectNode run = root.putObject(name).put("store_seconds", r.storeSeconds()).put("unmarked", r.unmarked())
                    .put("mean_tokens_used", r.meanTokens());
            run.set("current", json(r.current()));
            run.set("as_of", json(r.asOf()));
            run.putObject("expiry").put("memories", r.expiry().memories()).put("gone", r.expiry().gone())
                    .put("gone_within_freshness", r.expiry().goneInTime())
                    .put("median_seconds_after_expiry", r.expiry().medianSecondsLate())
                    .put("max_seconds_after_expiry", r.expiry().maxSecondsLate());
        });
        return root;
    }

    private static ObjectNode json(Tally t) {
        ObjectNode o = ResponsesJson.JSON.createObjectNode().put("questions", t.questions)
                .put("right", Tally.share(t.right, t.questions)).put("true_value_in", Tally.share(t.found, t.questions))
                .put("other_value_in", Tally.share(t.stale, t.questions));
        ObjectNode byMeans = o.putObject("right_by_means");
        t.byMeans.forEach((means, n) -> byMeans.put(means.name().toLowerCase(Locale.ROOT), Tally.share(n[1], n[0])));
        return o;
    }

    private void table(PrintWriter out, Workload w, Map<String, Result> results) {
        out.printf(Locale.ROOT, "%d facts of %d users, %d updates, %d memories written, %d expiring; contexts of %d"
                        + " tokens%n%n", w.facts().size(), users, w.facts().stream().mapToInt(f -> f.versions().size() - 1)
                        .sum(), w.memories().size(), w.notes().size(), budget);
        out.printf(Locale.ROOT, "  %-18s %-8s %9s %9s %9s %11s %9s %9s%n", "", "asked", "questions", "right",
                "true in", "other in", "supersedes", "key");
        results.forEach((name, r) -> {
            row(out, name, "now", r.current());
            row(out, "", "as_of", r.asOf());
            out.printf(Locale.ROOT, "  %-18s expiry: %d of %d gone within %d s of expires_at (%d at all, median %.1f s,"
                            + " last %.1f s after); stored in %.1f s; %.0f tokens per context%n", "",
                    r.expiry().goneInTime(), r.expiry().memories(), EXPIRY_FRESHNESS.toSeconds(), r.expiry().gone(),
                    r.expiry().medianSecondsLate(), r.expiry().maxSecondsLate(), r.storeSeconds(), r.meanTokens());
        });
    }

    private static void row(PrintWriter out, String name, String asked, Tally t) {
        int[] supersedes = t.byMeans.getOrDefault(Means.SUPERSEDES, new int[2]);
        int[] key = t.byMeans.getOrDefault(Means.KEY, new int[2]);
        int[] validity = t.byMeans.getOrDefault(Means.VALIDITY, new int[2]);
        out.printf(Locale.ROOT, "  %-18s %-8s %9d %9.3f %9.3f %9.3f %11.3f %9.3f (validity %.3f)%n", name, asked,
                t.questions, Tally.share(t.right, t.questions), Tally.share(t.found, t.questions),
                Tally.share(t.stale, t.questions), Tally.share(supersedes[1], supersedes[0]),
                Tally.share(key[1], key[0]), Tally.share(validity[1], validity[0]));
    }
}
