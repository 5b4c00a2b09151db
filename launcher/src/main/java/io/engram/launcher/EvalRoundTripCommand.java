package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.client.EngramProducer;
import io.engram.client.Importer;
import io.engram.client.KafkaClients;
import io.engram.client.Payload;
import io.engram.client.PayloadKind;
import io.engram.client.PayloadValidator;
import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.launcher.FactUpdates.Memory;
import io.engram.launcher.FactUpdates.Workload;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.Retrieval;
import io.engram.stack.EmbeddedStack;
import io.engram.store.ExportLines;
import io.engram.store.MemoryReader;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Whether a tenant's memory survives a move (docs/benchmarks.md, "Does a moved tenant come back whole"): the LoCoMo
 * conversations and a tenant of fact chains written to one fresh embedded deployment and run through the job; each
 * tenant exported ({@link ExportLines}); the exports imported as other tenants on a second fresh deployment
 * ({@link Importer}) and run through the job again. Every record of A must have its equal on B, the tenant renamed
 * and derived records recomputed, and the contexts of the questions must include the same records.
 */
@Command(name = "roundtrip", mixinStandardHelpOptions = true,
        description = "Writes LoCoMo conversations and fact chains to one fresh deployment, exports each tenant, "
                + "imports it as another tenant on a second one, and compares every record and the questions' contexts.")
final class EvalRoundTripCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--data", converter = ExistingPath.class, required = true, paramLabel = "FILE", description = "LoCoMo JSON.")
    Path data;

    @Option(names = "--conversations", paramLabel = "N", description = "The first N conversations only (default: all).")
    Integer conversations;

    @Option(names = "--questions", paramLabel = "N", description = "Questions asked on both sides (default: ${DEFAULT-VALUE}).")
    int questions = 50;

    @Option(names = "--budget", paramLabel = "TOKENS", description = "Each context's token budget (default: ${DEFAULT-VALUE}).")
    int budget = 500;

    @Option(names = "--shards", paramLabel = "N",
            description = "Shards of the memory index on both deployments (default: the index template's).")
    Integer shards;

    @Option(names = "--keep-tenants",
            description = "Import each export as the tenant it came from: a control for how far two deployments of the "
                    + "same records differ without a move.")
    boolean keepTenants;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where the exports are written (default: a new temporary folder).")
    Path workDir;

    /** The tenant of the fact chains. */
    static final String FACTS_TENANT = "roundtrip-facts";

    /** A tenant's name on the second deployment. */
    private String moved(String tenant) {
        return keepTenants ? tenant : tenant + "-moved";
    }

    /** A question of one tenant, asked at {@code now}. */
    record Question(String tenant, String text, Instant now) {
    }

    /** What one deployment holds: each tenant's records as lines that name no tenant, and each question's context. */
    record Side(Map<String, Set<String>> records, List<List<String>> contexts) {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        List<LocomoData.Conversation> all = LocomoData.read(data);
        List<LocomoData.Conversation> input = all.subList(0, conversations == null ? all.size()
                : Math.min(conversations, all.size()));
        Workload facts = FactUpdates.generate(62, 10, 4, 3);
        List<String> tenants = new ArrayList<>(input.stream().map(EvalLocomoCommand::tenant).toList());
        tenants.add(FACTS_TENANT);
        List<Question> asked = questions(input, facts);
        Path work = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("engram-roundtrip");

        Map<String, Long> exported = new LinkedHashMap<>();
        Side a = onFreshDeployment("a", tenants, asked, pipeline -> {
            EvalLocomoCommand.produce(pipeline.kafka(), input);
            produceFacts(pipeline.kafka(), facts);
        }, retrieval -> export(retrieval, tenants, work, exported));
        Map<String, Importer.Outcome> imported = new LinkedHashMap<>();
        Side b = onFreshDeployment("b", tenants.stream().map(t -> moved(t)).toList(),
                asked.stream().map(q -> new Question(moved(q.tenant()), q.text(), q.now())).toList(),
                pipeline -> importAll(pipeline, tenants, work, imported), retrieval -> { });
        return report(out, tenants, asked, a, b, exported, imported);
    }

    private int report(PrintWriter out, List<String> tenants, List<Question> asked, Side a, Side b,
                       Map<String, Long> exported, Map<String, Importer.Outcome> imported) {
        boolean same = true;
        out.printf("%-24s %8s %8s %8s %8s %s%n", "tenant", "exported", "imported", "A", "B", "records");
        for (String tenant : tenants) {
            Set<String> onA = a.records().get(tenant);
            Set<String> onB = b.records().get(moved(tenant));
            Importer.Outcome outcome = imported.get(tenant);
            boolean equal = onA.equals(onB) && outcome.rejectedTotal() == 0;
            same &= equal;
            out.printf(Locale.ROOT, "%-24s %8d %8d %8d %8d %s%n", tenant, exported.get(tenant),
                    outcome.acceptedTotal(), onA.size(), onB.size(), equal ? "equal" : difference(onA, onB)
                            + (outcome.rejectedTotal() == 0 ? "" : "; rejected: " + outcome.rejected()));
        }
        int sameContexts = 0;
        int sameSets = 0;
        double overlap = 0;
        for (int i = 0; i < asked.size(); i++) {
            List<String> onA = a.contexts().get(i);
            List<String> onB = b.contexts().get(i);
            Set<String> both = new TreeSet<>(onA);
            both.retainAll(onB);
            Set<String> either = new TreeSet<>(onA);
            either.addAll(onB);
            overlap += either.isEmpty() ? 1 : (double) both.size() / either.size();
            sameContexts += onA.equals(onB) ? 1 : 0;
            sameSets += both.size() == either.size() ? 1 : 0;
            if (!onA.equals(onB)) {
                out.println("context differs: " + asked.get(i).tenant() + ": " + asked.get(i).text() + " (" + both.size()
                        + " of " + either.size() + " records on both)");
            }
        }
        same &= sameContexts == asked.size();
        out.printf(Locale.ROOT, "contexts (%d tokens): %d of %d questions include the same records in the same order, "
                + "%d the same records; mean overlap (Jaccard) %.3f%n", budget, sameContexts, asked.size(), sameSets,
                overlap / asked.size());
        out.println(same ? "the moved tenants hold what the originals held" : "the moved tenants differ");
        out.flush();
        return same ? 0 : 1;
    }

    private static String difference(Set<String> a, Set<String> b) {
        Set<String> onlyA = new TreeSet<>(a);
        onlyA.removeAll(b);
        Set<String> onlyB = new TreeSet<>(b);
        onlyB.removeAll(a);
        return "only on A " + onlyA.size() + ", only on B " + onlyB.size() + "; first only on A: "
                + onlyA.stream().findFirst().orElse("none") + "; first only on B: " + onlyB.stream().findFirst().orElse("none");
    }

    private interface Step<T> {
        void run(T value) throws Exception;
    }

    /** A fresh embedded deployment: input written, the job run to its end, then what it holds read. */
    private Side onFreshDeployment(String name, List<String> tenants, List<Question> asked, Step<PipelineConfig> write,
                                   Step<Retrieval> after) throws Exception {
        PrintWriter progress = spec.commandLine().getErr();
        try (EmbeddedStack stack = EmbeddedStack.start(EmbeddedStack.Config.all(Optional.empty()), (s, address) -> { })) {
            Properties p = LocalPipeline.embedded(stack, true);
            PipelineConfig pipeline = PipelineConfig.fromProperties(p);
            EngramSetup.prepare(pipeline, step -> { });
            if (shards != null) {
                recreateWithShards(pipeline);
            }
            write.run(pipeline);
            progress.println("[roundtrip] " + name + ": input written; running the job ...");
            progress.flush();
            LocalPipeline.run(p, pipeline, "engram-eval-roundtrip-" + name);
            try (Retrieval retrieval = Retrieval.open(pipeline.openSearch(), pipeline.index())) {
                retrieval.store().refresh();
                Map<String, Set<String>> records = new LinkedHashMap<>();
                for (String tenant : tenants) {
                    records.put(tenant, canonical(retrieval.store(), tenant));
                }
                List<List<String>> contexts = new ArrayList<>();
                for (Question q : asked) {
                    contexts.add(context(retrieval, q));
                }
                after.run(retrieval);
                progress.println("[roundtrip] " + name + ": " + records.values().stream().mapToInt(Set::size).sum()
                        + " records of " + tenants.size() + " tenants read, " + asked.size() + " questions asked");
                progress.flush();
                return new Side(records, contexts);
            }
        }
    }

    /**
     * A tenant's records as lines without the tenant: every id (its own, what it names) as the tenant-free id a
     * gateway gave, or for a record the job made (whose id hashes the tenant in) as the digest of its line.
     */
    static Set<String> canonical(MemoryReader store, String tenant) {
        List<MemoryRecord> all = store.find(tenant, Map.of(), Set.of(), 10_000, null, true);
        Map<String, String> names = new LinkedHashMap<>();
        for (MemoryRecord r : all) {
            names.put(r.id(), r.id().startsWith(tenant + "/") ? r.id().substring(tenant.length() + 1)
                    : r.type().label() + ":" + digest(r.sessionId() + "|" + r.text() + "|" + r.ts()));
        }
        return all.stream().map(r -> String.join("|", names.get(r.id()), r.type().label(), String.valueOf(r.tier()),
                r.text(), String.valueOf(r.ts()), String.valueOf(r.sessionId()), String.valueOf(r.userId()),
                String.valueOf(r.role()), String.valueOf(r.agentId()), String.valueOf(r.key()),
                String.valueOf(renamed(r.supersedes(), names, tenant)), String.valueOf(name(r.supersededBy(), names, tenant)),
                String.valueOf(r.supersededAt()), String.valueOf(r.validFrom()), String.valueOf(r.validUntil()),
                String.valueOf(r.expiresAt()), String.valueOf(r.generation()),
                String.valueOf(new TreeSet<>(renamed(r.sourceRefs(), names, tenant))))).collect(Collectors.toSet());
    }

    private static List<String> renamed(List<String> ids, Map<String, String> names, String tenant) {
        return ids.stream().map(id -> name(id, names, tenant)).toList();
    }

    private static String name(String id, Map<String, String> names, String tenant) {
        return id == null ? null : names.getOrDefault(id, id.startsWith(tenant + "/") ? id.substring(tenant.length() + 1) : id);
    }

    private static String digest(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)), 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The records a question's context includes, in order, named as {@link #canonical} names them. */
    private List<String> context(Retrieval retrieval, Question q) {
        AssembledContext context = retrieval.context().assemble(new ContextService.Request(q.tenant(), null, null,
                q.text(), budget), q.now());
        Set<String> ids = context.included().stream().map(i -> i.item().id()).collect(Collectors.toSet());
        Map<String, String> lines = new LinkedHashMap<>();
        retrieval.store().get(q.tenant(), List.copyOf(ids)).forEach(r -> lines.put(r.id(), r.type().label() + "|"
                + r.text() + "|" + r.ts()));
        return context.included().stream().map(i -> lines.getOrDefault(i.item().id(), "missing " + i.item().id()))
                .toList();
    }

    /** The first questions of each conversation in turn, then the fact chains' questions, {@code questions} in all. */
    private List<Question> questions(List<LocomoData.Conversation> input, Workload facts) throws Exception {
        List<Question> factQuestions = facts.facts().stream().map(f -> new Question(FACTS_TENANT, f.question(),
                FactUpdates.HISTORY_START.plus(Duration.ofDays(FactUpdates.HISTORY_DAYS)))).toList();
        int fromLocomo = Math.max(0, questions - Math.min(factQuestions.size(), questions / 5));
        List<List<Question>> perConversation = new ArrayList<>();
        for (LocomoData.Conversation c : input) {
            Instant now = c.turns().get(c.turns().size() - 1).ts().plus(Duration.ofDays(1));
            List<Question> its = new ArrayList<>();
            for (JsonNode qa : LocomoData.questions(data, c.sampleId())) {
                its.add(new Question(EvalLocomoCommand.tenant(c), qa.path("question").asText(), now));
            }
            perConversation.add(its);
        }
        List<Question> asked = new ArrayList<>();
        int longest = perConversation.stream().mapToInt(List::size).max().orElse(0);
        for (int i = 0; i < longest && asked.size() < fromLocomo; i++) {
            for (List<Question> its : perConversation) {
                if (i < its.size() && asked.size() < fromLocomo) {
                    asked.add(its.get(i));
                }
            }
        }
        asked.addAll(factQuestions.subList(0, Math.min(factQuestions.size(), questions - asked.size())));
        return asked;
    }

    /** The fact chains as a gateway writes them to Kafka: memory.v1, in the order they happened. */
    private static void produceFacts(KafkaClients kafka, Workload facts) {
        try (EngramProducer producer = new EngramProducer(kafka, new Properties(), PayloadValidator.Limits.DEFAULT)) {
            for (Memory m : facts.memories()) {
                producer.send(Payload.of(PayloadKind.MEMORY, UpdatesRun.payload(m).put("schema", "memory.v1")
                        .put("tenant_id", FACTS_TENANT).put("type", "memory").put("op", "upsert")));
            }
            producer.flush();
        }
    }

    /** The empty index made again with {@link #shards} shards, the template's mapping and the model it records. */
    private void recreateWithShards(PipelineConfig pipeline) throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        String url = pipeline.openSearch().url() + "/" + pipeline.index();
        String model = pipeline.embeddingModel().id();
        for (java.net.http.HttpRequest request : List.of(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                .DELETE().build(), java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                .header("Content-Type", "application/json").PUT(java.net.http.HttpRequest.BodyPublishers.ofString(
                        "{\"settings\": {\"index\": {\"number_of_shards\": " + shards + "}}, \"mappings\": {\"_meta\": "
                                + "{\"embedding_model\": \"" + model + "\"}}}")).build())) {
            java.net.http.HttpResponse<String> answer = http.send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException(request.method() + " " + url + ": " + answer.statusCode() + " " + answer.body());
            }
        }
        EngramSetup.prepare(pipeline, step -> { });
    }

    /** Each tenant's export, as the operator's {@code ./engram export} writes it; how many records each holds. */
    private static void export(Retrieval retrieval, List<String> tenants, Path work, Map<String, Long> exported)
            throws Exception {
        for (String tenant : tenants) {
            ExportLines.Pages pages = cursor -> retrieval.store().list(tenant, Map.of(), Set.<RecordType>of(),
                    MemoryReader.Order.OLDEST_FIRST, ExportLines.PAGE_SIZE, cursor);
            try (Writer file = Files.newBufferedWriter(work.resolve(tenant + ".jsonl"))) {
                exported.put(tenant, ExportLines.write(pages.after(null), pages, file));
            }
        }
    }

    /** Each export imported as its tenant moved, as {@code ./engram import} sends it. */
    private void importAll(PipelineConfig pipeline, List<String> tenants, Path work,
                                  Map<String, Importer.Outcome> imported) throws Exception {
        Importer importer = new Importer(PayloadValidator.Limits.DEFAULT);
        try (EngramProducer producer = new EngramProducer(pipeline.kafka(), new Properties(), PayloadValidator.Limits.DEFAULT)) {
            for (String tenant : tenants) {
                try (InputStream in = Files.newInputStream(work.resolve(tenant + ".jsonl"))) {
                    imported.put(tenant, importer.run(in, moved(tenant), Importer.Format.ENGRAM,
                            Importer.through(producer)));
                }
            }
        }
    }
}
