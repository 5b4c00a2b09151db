package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.cluster.FlinkRest;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The checkpoints of the one job a {@code ./engram run} process runs, from its Flink REST API: how many completed,
 * the newest one's duration and sizes (the state it covers, and what it wrote: with RocksDB's incremental
 * checkpoints, only the files new since the one before), and a full checkpoint on demand.
 */
final class JobCheckpoints {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final FlinkRest rest;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    JobCheckpoints(String restUrl) {
        this.rest = new FlinkRest(restUrl);
    }

    /** One completed checkpoint: its id, end-to-end duration, the state it covers and what it wrote. */
    record Checkpoint(long id, long durationMillis, long stateBytes, long writtenBytes, String type) {
    }

    /** The running job's id, when the REST API answers and a job runs. */
    Optional<String> runningJob() {
        try {
            return rest.jobs().stream().filter(j -> j.path("state").asText().equals("RUNNING"))
                    .map(j -> j.path("jid").asText()).findFirst();
        } catch (IOException e) { // not listening yet
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Completed checkpoints of the job so far. */
    long completed(String job) throws IOException, InterruptedException {
        return rest.checkpoints(job).path("counts").path("completed").asLong();
    }

    /** Whether the job restored a checkpoint when it started. */
    boolean restored(String job) throws IOException, InterruptedException {
        return !rest.checkpoints(job).path("latest").path("restored").isMissingNode()
                && !rest.checkpoints(job).path("latest").path("restored").isNull();
    }

    /** The newest completed checkpoint. */
    Checkpoint latest(String job) throws IOException, InterruptedException {
        JsonNode c = rest.checkpoints(job).path("latest").path("completed");
        return new Checkpoint(c.path("id").asLong(), c.path("end_to_end_duration").asLong(), c.path("state_size").asLong(),
                c.path("checkpointed_size").asLong(), c.path("checkpoint_type").asText());
    }

    /** Waits for a checkpoint completed after the {@code after}-th, the job's newest then. */
    Checkpoint awaitNext(String job, long after, Duration patience, JobProcess process) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (completed(job) <= after) {
            if (!process.alive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("no checkpoint after the " + after + "th within " + patience
                        + (process.alive() ? "" : ": the job process died"));
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        return latest(job);
    }

    /**
     * Triggers a full checkpoint (every file written anew, as the first one of a job) and waits for it. Its duration
     * and sizes come from the REST API's statistics; when Flink keeps none for it (seen with a loaded job: the details
     * answer 404 for a checkpoint the trigger reported complete), the duration is the time from trigger to
     * completion as polled, and the sizes are unknown ({@code -1}).
     */
    Checkpoint full(String job, JobProcess process) throws IOException, InterruptedException {
        long start = System.nanoTime();
        String trigger = send(HttpRequest.newBuilder(URI.create(rest.baseUrl() + "/jobs/" + job + "/checkpoints"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"checkpointType\":\"FULL\"}"))).path("request-id").asText();
        long deadline = start + Duration.ofMinutes(10).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status = send(HttpRequest.newBuilder(URI.create(rest.baseUrl() + "/jobs/" + job + "/checkpoints/" + trigger)).GET());
            if (status.path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode operation = status.path("operation");
                if (operation.has("failure-cause")) {
                    throw new IOException("the full checkpoint failed: " + operation.path("failure-cause"));
                }
                long id = operation.path("checkpointId").asLong();
                long polled = Duration.ofNanos(System.nanoTime() - start).toMillis();
                return details(job, id, System.nanoTime() + Duration.ofMinutes(1).toNanos())
                        .map(c -> new Checkpoint(c.path("id").asLong(), c.path("end_to_end_duration").asLong(),
                                c.path("state_size").asLong(), c.path("checkpointed_size").asLong(), c.path("checkpoint_type").asText()))
                        .orElse(new Checkpoint(id, polled, -1, -1, "FULL"));
            }
            if (!process.alive()) {
                throw new IllegalStateException("the job process died during a full checkpoint");
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new IllegalStateException("the full checkpoint did not complete within ten minutes");
    }

    /**
     * A checkpoint's statistics, which the REST API may know only a moment after the checkpoint completed, or the
     * overview's newest completed one if it is that one; empty when neither has it by the deadline.
     */
    private Optional<JsonNode> details(String job, long checkpoint, long deadline) throws IOException, InterruptedException {
        while (System.nanoTime() < deadline) {
            JsonNode newest = rest.checkpoints(job).path("latest").path("completed");
            if (newest.path("id").asLong() == checkpoint) {
                return Optional.of(newest);
            }
            try {
                return Optional.of(send(HttpRequest.newBuilder(URI.create(rest.baseUrl() + "/jobs/" + job
                        + "/checkpoints/details/" + checkpoint)).GET()));
            } catch (IOException e) { // not in the statistics (yet)
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
        return Optional.empty();
    }

    private JsonNode send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() / 100 != 2) {
            throw new IOException(answer.request().uri() + " answered " + answer.statusCode() + ": " + answer.body());
        }
        return JSON.readTree(answer.body());
    }
}
