package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.embed.HashedStandinEmbedder;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedStack;
import io.engram.store.MemoryStore;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RecordIds;
import io.engram.store.RetryPolicy;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./engram bench export}: one tenant of N records (turns, memories, summaries, embedded with the stand-in)
 * bulk-written through the store's writer onto the embedded OpenSearch, then exported through the real memory
 * service ({@code GET /v1/export}) in this JVM, as {@code ./engram serve} runs it. Two passes: one read as fast as
 * it comes (records per second), one that stops at marks to take the heap in use after a full collection and the
 * highest heap in use between marks; and, side by side, the same records paged through {@code GET /v1/memories}.
 * The heap is this JVM's (the service with the embedded servers beside it): what must hold is that it does not
 * grow with the records sent.
 */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = "A tenant's export through the memory service: records per second and the heap as the stream goes.")
public final class BenchExportCommand implements Callable<Integer> {

    private static final String TENANT = "bench-export";
    private static final int BATCH = 1000;

    @Spec
    CommandSpec spec;

    @Option(names = "--records", defaultValue = "100000", description = "records of the tenant (default: ${DEFAULT-VALUE})")
    int records;

    @Option(names = "--marks", split = ",", description = "records sent at which the heap is taken (default: 10000,50000,100000)")
    List<Integer> marks = List.of(10_000, 50_000, 100_000);

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter progress = spec.commandLine().getErr();
        Path work = Files.createTempDirectory("engram-bench-export");
        ObjectNode report = RawHttp.JSON.createObjectNode().put("records", records);
        try (EmbeddedStack stack = EmbeddedStack.start(EmbeddedStack.Config.all(Optional.empty()), (s, a) -> { })) {
            RunSettings.Servers servers = new RunSettings.Servers(stack.kafka().orElseThrow().bootstrapServers(),
                    stack.openSearch().orElseThrow().httpUrl(), stack.postgres().orElseThrow().jdbcUrl());
            RunSettings settings = RunSettings.write(work, "export", servers, true, 0, RunSettings.STANDIN, Map.of());
            long loadStarted = System.nanoTime();
            load(servers.openSearch(), settings.index());
            report.put("load_records_per_second", Math.round(records / seconds(loadStarted)));
            progress.printf("bench export: %,d records loaded%n", records);
            try (ScaleService service = ScaleService.start(work, settings, List.of(TENANT))) {
                report.set("fast", pass(service, List.of()));
                report.set("sampled", pass(service, marks));
                report.set("listing", listing(service));
            }
        }
        out.println(RawHttp.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report));
        out.flush();
        return 0;
    }

    /** The tenant's records, written as the pipeline's writer writes them: bulk upserts of 1,000. */
    private void load(String openSearch, String index) {
        HashedStandinEmbedder embedder = new HashedStandinEmbedder(EmbeddingModel.DIMENSION);
        try (MemoryStore store = OpenSearchMemoryStore.at(openSearch, index, RetryPolicy.DEFAULT).open()) {
            store.ensureIndex(HashedStandinEmbedder.ID, EmbeddingModel.DIMENSION);
            List<MemoryRecord> batch = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                batch.add(record(i, embedder));
                if (batch.size() == BATCH || i == records - 1) {
                    store.upsert(batch);
                    batch.clear();
                }
            }
            store.refresh();
        }
    }

    private static MemoryRecord record(int i, HashedStandinEmbedder embedder) {
        String session = "s" + i / 40;
        String user = "u" + i / 4000;
        String text = "Record " + i + " of session " + session + ": the quarterly budget, the office move and a kayak trip.";
        MemoryRecord.Builder r = switch (i % 10) {
            case 0, 1, 2, 3, 4, 5 -> MemoryRecord.of(RecordIds.turn(TENANT, session, "t" + i), TENANT, RecordType.TURN, text,
                    ScaleRun.T0.plusSeconds(i)).session(session).user(user).role(i % 2 == 0 ? "user" : "assistant").position(i % 40);
            case 6, 7, 8 -> MemoryRecord.of(RecordIds.memory(TENANT, "m" + i), TENANT, RecordType.MEMORY, text,
                    ScaleRun.T0.plusSeconds(i)).user(user).key("k" + i % 500);
            default -> MemoryRecord.of("sum-bench-" + i, TENANT, RecordType.SUMMARY, text, ScaleRun.T0.plusSeconds(i))
                    .session(session).user(user);
        };
        return r.embedding(embedder.embedDocuments(List.of(text)).get(0).vector()).tokens(20).build();
    }

    /**
     * One export read to its end line: records per second, and at each mark (records received) the heap in use
     * after a full collection and the most in use seen since the last mark (every 1,000 lines, without collecting).
     */
    private ObjectNode pass(ScaleService service, List<Integer> at) throws Exception {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        HttpRequest request = HttpRequest.newBuilder(URI.create(service.url() + "/v1/export"))
                .header("Authorization", "Bearer " + service.key(TENANT)).build();
        ObjectNode pass = RawHttp.JSON.createObjectNode();
        ArrayNode heap = pass.putArray("heap");
        heap.addObject().put("records", 0).put("used_after_gc_mb", usedAfterGc(memory));
        Set<Integer> marksLeft = new TreeSet<>(at);
        long received = 0;
        long peak = 0;
        long paused = 0;
        long started = System.nanoTime();
        HttpResponse<InputStream> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                JsonNode parsed = RawHttp.JSON.readTree(line);
                if (parsed.get("schema").asText().equals("cursor.v1")) {
                    if (parsed.get("cursor").isNull()) {
                        pass.put("records_counted_by_service", parsed.get("records").asLong());
                    }
                    continue;
                }
                received++;
                if (received % 1000 == 0) {
                    peak = Math.max(peak, memory.getHeapMemoryUsage().getUsed());
                }
                if (marksLeft.remove((int) received)) {
                    long pause = System.nanoTime();
                    heap.addObject().put("records", received).put("used_after_gc_mb", usedAfterGc(memory))
                            .put("max_used_since_last_mb", peak / (1 << 20));
                    peak = 0;
                    paused += System.nanoTime() - pause;
                }
            }
        }
        double seconds = (System.nanoTime() - started - paused) / 1e9;
        return pass.put("status", response.statusCode()).put("records", received).put("seconds", Math.round(seconds * 10) / 10.0)
                .put("records_per_second", Math.round(received / seconds));
    }

    /** The alternative without an export: every page of {@code GET /v1/memories}, 100 records each, as a client pages it. */
    private ObjectNode listing(ScaleService service) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long received = 0;
        String cursor = null;
        long started = System.nanoTime();
        do {
            String query = "/v1/memories?limit=100" + (cursor == null ? "" : "&cursor=" + cursor);
            HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(service.url() + query))
                    .header("Authorization", "Bearer " + service.key(TENANT)).build(), HttpResponse.BodyHandlers.ofString());
            if (page.statusCode() != 200) {
                throw new IllegalStateException("GET " + query + " answered " + page.statusCode() + ": " + page.body());
            }
            JsonNode body = RawHttp.JSON.readTree(page.body());
            received += body.get("records").size();
            cursor = body.get("next_cursor").isNull() ? null : body.get("next_cursor").asText();
        } while (cursor != null);
        double seconds = seconds(started);
        return RawHttp.JSON.createObjectNode().put("records", received).put("seconds", Math.round(seconds * 10) / 10.0)
                .put("records_per_second", Math.round(received / seconds));
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        System.gc();
        return memory.getHeapMemoryUsage().getUsed() / (1 << 20);
    }

    private static double seconds(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1e9;
    }
}
