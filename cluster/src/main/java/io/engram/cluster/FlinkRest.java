package io.engram.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The part of Flink's REST API that deploying and operating Engram needs: upload and run the job jar, watch
 * a job and its checkpoints, stop it with a savepoint. Works against any Flink 2.x JobManager.
 */
public final class FlinkRest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SAVEPOINT_TIMEOUT = Duration.ofMinutes(5);

    private final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public FlinkRest(String baseUrl) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    }

    /**
     * How to run an uploaded jar: entry class, parallelism (0: the cluster's default), program arguments, an
     * optional savepoint to restore and an optional job id (its checkpoints go under it).
     */
    public record RunRequest(String entryClass, int parallelism, List<String> programArgs, String savepointPath,
                             String jobId) {
    }

    public String baseUrl() {
        return baseUrl;
    }

    /** Uploads a job jar and returns the id {@link #run} takes. */
    public String uploadJar(Path jar) throws IOException, InterruptedException {
        String boundary = "engram-" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                + jar.getFileName() + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        body.write(Files.readAllBytes(jar));
        body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        JsonNode answer = send(HttpRequest.newBuilder(URI.create(baseUrl + "/jars/upload"))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())));
        return Path.of(answer.path("filename").asText()).getFileName().toString();
    }

    /** Runs an uploaded jar's main method on the JobManager and returns the job id. */
    public String run(String jarId, RunRequest request) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode();
        body.put("entryClass", request.entryClass());
        if (request.parallelism() > 0) {
            body.put("parallelism", request.parallelism());
        }
        body.set("programArgsList", JSON.valueToTree(request.programArgs()));
        if (request.jobId() != null) {
            body.put("jobId", request.jobId());
        }
        if (request.savepointPath() != null) {
            body.put("savepointPath", request.savepointPath());
            body.put("allowNonRestoredState", false);
        }
        return post("/jars/" + jarId + "/run", body).path("jobid").asText();
    }

    /** The job's status: RUNNING, FINISHED, FAILED, CANCELED, RESTARTING, … */
    public String jobState(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId).path("state").asText();
    }

    /** The job's details: state, vertices with their parallelism and task states. */
    public JsonNode job(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId);
    }

    /** Checkpoint statistics: {@code counts.completed}, {@code counts.restored}, {@code latest.restored}, … */
    public JsonNode checkpoints(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId + "/checkpoints");
    }

    /** The root exceptions of a job's failures so far (for diagnosis). */
    public JsonNode exceptions(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId + "/exceptions");
    }

    /** Waits until the job reaches one of {@code states}; a terminal state not asked for is an error. */
    public String awaitState(String jobId, Set<String> states, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String state = jobState(jobId);
            if (states.contains(state)) {
                return state;
            }
            if (Set.of("FINISHED", "FAILED", "CANCELED").contains(state)) {
                throw new IOException("job " + jobId + " ended " + state + " while waiting for " + states + ": "
                        + exceptions(jobId).path("root-exception").asText());
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("job " + jobId + " still " + state + " after " + timeout + ", expected " + states);
            }
            TimeUnit.MILLISECONDS.sleep(250);
        }
    }

    /**
     * Takes a savepoint and stops the job; {@code drain} first advances event time to the end (final timers fire).
     * Waits first until every task runs: a savepoint triggered while a task of a just-started or restarting job
     * still initializes fails ("not all required tasks are currently running") and the job goes on running.
     */
    public String stopWithSavepoint(String jobId, boolean drain) throws IOException, InterruptedException {
        awaitAllTasksRunning(jobId, SAVEPOINT_TIMEOUT);
        ObjectNode body = JSON.createObjectNode().put("drain", drain).put("formatType", "CANONICAL");
        String trigger = post("/jobs/" + jobId + "/stop", body).path("request-id").asText();
        return awaitSavepoint(jobId, trigger);
    }

    /** Cancels every job that has not ended (what a caller that failed halfway leaves behind), returning their ids. */
    public List<String> cancelUnfinishedJobs() throws IOException, InterruptedException {
        List<String> cancelled = new ArrayList<>();
        for (JsonNode job : get("/jobs/overview").path("jobs")) {
            if (!Set.of("FINISHED", "FAILED", "CANCELED").contains(job.path("state").asText())) {
                String id = job.path("jid").asText();
                send(HttpRequest.newBuilder(URI.create(baseUrl + "/jobs/" + id + "?mode=cancel"))
                        .method("PATCH", HttpRequest.BodyPublishers.noBody()));
                cancelled.add(id);
            }
        }
        return cancelled;
    }

    public int taskManagerCount() throws IOException, InterruptedException {
        return get("/overview").path("taskmanagers").asInt();
    }

    /** Waits until the REST endpoint answers, failing early when {@code process} (the JobManager) died. */
    void awaitReady(Duration timeout, Process process) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                get("/overview");
                return;
            } catch (IOException e) { // not listening yet, or answering before it is ready
                if (!process.isAlive()) {
                    throw new IOException("the JobManager exited with " + process.exitValue() + " before its REST API answered");
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("the JobManager's REST API did not answer at " + baseUrl + " within " + timeout, e);
                }
                TimeUnit.MILLISECONDS.sleep(250);
            }
        }
    }

    private void awaitAllTasksRunning(String jobId, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JsonNode job = job(jobId);
            boolean allRunning = job.path("state").asText().equals("RUNNING") && job.path("vertices").size() > 0;
            for (JsonNode vertex : job.path("vertices")) {
                allRunning &= Set.of("RUNNING", "FINISHED").contains(vertex.path("status").asText());
            }
            if (allRunning) {
                return;
            }
            if (Set.of("FINISHED", "FAILED", "CANCELED").contains(job.path("state").asText())) {
                return; // the stop request answers for a job that has ended
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("job " + jobId + " has tasks not running after " + timeout + ": " + job.path("vertices"));
            }
            TimeUnit.MILLISECONDS.sleep(250);
        }
    }

    private String awaitSavepoint(String jobId, String trigger) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + SAVEPOINT_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status = get("/jobs/" + jobId + "/savepoints/" + trigger);
            if (status.path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode operation = status.path("operation");
                if (operation.has("failure-cause")) {
                    throw new IOException("savepoint of " + jobId + " failed: "
                            + operation.path("failure-cause").path("stack-trace").asText());
                }
                return operation.path("location").asText();
            }
            TimeUnit.MILLISECONDS.sleep(250);
        }
        throw new IOException("savepoint of " + jobId + " not done within " + SAVEPOINT_TIMEOUT);
    }

    /** Every job the JobManager knows, newest first: {@code jid}, {@code name}, {@code state}, {@code start-time}. */
    public List<JsonNode> jobs() throws IOException, InterruptedException {
        List<JsonNode> jobs = new ArrayList<>();
        get("/jobs/overview").path("jobs").forEach(jobs::add);
        jobs.sort(java.util.Comparator.comparingLong((JsonNode j) -> j.path("start-time").asLong()).reversed());
        return jobs;
    }

    /**
     * A metric of a job's vertex over its subtasks, aggregated by {@code aggregation} (min, max, avg or sum); an
     * operator's metric ids start with its name, every character but letters, digits and {@code _} made {@code _}
     * ({@code write_to_OpenSearch.numRecordsInPerSecond}). Empty when the vertex has no such metric (yet).
     */
    public java.util.OptionalDouble vertexMetric(String jobId, String vertexId, String metricId, String aggregation)
            throws IOException, InterruptedException {
        JsonNode values = get("/jobs/" + jobId + "/vertices/" + vertexId + "/subtasks/metrics?get="
                + java.net.URLEncoder.encode(metricId, StandardCharsets.UTF_8) + "&agg=" + aggregation);
        return values.size() == 0 ? java.util.OptionalDouble.empty()
                : java.util.OptionalDouble.of(values.get(0).path(aggregation).asDouble());
    }

    /**
     * Waits until the JobManager has fetched a vertex's metrics from its TaskManagers: it fetches them when asked
     * (at most every {@code metrics.fetcher.update-interval}, 10 s by default), so the first question after a
     * start finds none. Returns whether they arrived within {@code timeout}.
     */
    public boolean awaitVertexMetrics(String jobId, String vertexId, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (get("/jobs/" + jobId + "/vertices/" + vertexId + "/subtasks/metrics").size() == 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(500);
        }
        return true;
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET());
    }

    private JsonNode post(String path, JsonNode body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    }

    private JsonNode send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request.timeout(Duration.ofMinutes(2)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IOException(response.request().method() + " " + response.request().uri() + " -> "
                    + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }
}
