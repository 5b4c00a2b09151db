package io.engram.launcher;

import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedStack;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Whether the same input gives the same memory (docs/operations.md, "Recovery"): the LoCoMo conversations, as
 * {@code eval locomo} sends them, through {@code ./engram run} with {@code kafka.bounded=true} several times, each
 * on fresh embedded servers, for each partition count; then as many runs killed with SIGKILL at a random point
 * after their first checkpoint and started again. Every OpenSearch document and PostgreSQL row of every run is
 * compared with the first run's ({@link RunContents}).
 */
@Command(name = "determinism", mixinStandardHelpOptions = true,
        description = "Runs the same LoCoMo input through ./engram run several times (and killed with SIGKILL), "
                + "on fresh servers, and compares every document and row.")
final class EvalDeterminismCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--data", converter = ExistingPath.class, required = true, paramLabel = "FILE", description = "LoCoMo JSON.")
    Path data;

    @Option(names = "--partitions", split = ",", paramLabel = "N",
            description = "Partitions of each input topic, one series of runs each (default: ${DEFAULT-VALUE}).")
    List<Integer> partitions = List.of(2, 4);

    @Option(names = "--runs", paramLabel = "N", description = "Failure-free runs per partition count (default: ${DEFAULT-VALUE}).")
    int runs = 3;

    @Option(names = "--kills", paramLabel = "N",
            description = "Runs per partition count killed with SIGKILL after a checkpoint, then run to the end (default: ${DEFAULT-VALUE}).")
    int kills = 0;

    @Option(names = "--conversations", paramLabel = "N", description = "The first N conversations only (default: all).")
    Integer conversations;

    @Option(names = "--copies", paramLabel = "N",
            description = "Send each conversation N times, as N tenants, for an input as large as needed (default: ${DEFAULT-VALUE}).")
    int copies = 1;

    @Option(names = "--seed", description = "Where the kills fall (default: ${DEFAULT-VALUE}).")
    long seed = 58;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where runs keep their settings, state and logs (default: a new temporary folder).")
    Path workDir;

    private static final Duration RUN_PATIENCE = Duration.ofMinutes(60);

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        List<LocomoData.Conversation> input = LocomoData.read(data);
        if (conversations != null) {
            input = input.subList(0, Math.min(conversations, input.size()));
        }
        List<LocomoData.Conversation> copied = new ArrayList<>();
        for (int copy = 1; copy <= copies; copy++) {
            for (LocomoData.Conversation c : input) {
                copied.add(copy == 1 ? c : new LocomoData.Conversation(c.sampleId() + "-copy" + copy, c.speakerA(),
                        c.speakerB(), c.turns()));
            }
        }
        input = copied;
        List<String> tenants = input.stream().map(EvalLocomoCommand::tenant).toList();
        Path work = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("engram-determinism");
        Random random = new Random(seed);
        RunContents first = null;
        boolean allSame = true;
        out.printf("%-10s %-4s %-24s %8s %s%n", "partitions", "run", "failure", "seconds", "contents");
        List<int[]> plan = new ArrayList<>(); // {partitions, run}: the failure-free runs first, then the killed ones
        for (int killed = 0; killed <= 1; killed++) {
            for (int p : partitions) {
                for (int run = killed == 0 ? 1 : runs + 1; run <= (killed == 0 ? runs : runs + kills); run++) {
                    plan.add(new int[] {p, run});
                }
            }
        }
        for (int[] step : plan) {
            int p = step[0];
            int run = step[1];
            double killAt = run > runs ? 0.1 + 0.8 * random.nextDouble() : -1;
            long started = System.nanoTime();
            String verdict;
            try {
                RunContents contents = oneRun(work.resolve("p" + p + "-run" + run), p, input, tenants, killAt);
                if (first == null) {
                    first = contents;
                    verdict = "the reference: " + contents.counts();
                } else {
                    RunContents.Difference d = contents.against(first);
                    allSame &= d.none();
                    verdict = d.none() ? "identical to the reference" : d.size() + " lines differ: " + sample(d);
                }
            } catch (IllegalStateException e) {
                allSame = false;
                verdict = "not compared: " + e.getMessage();
            }
            out.printf(Locale.ROOT, "%-10d %-4d %-24s %8.0f %s%n", p, run,
                    killAt < 0 ? "none" : String.format(Locale.ROOT, "SIGKILL at %.0f%% of turns", 100 * killAt),
                    (System.nanoTime() - started) / 1e9, verdict);
            out.flush();
        }
        out.println(allSame ? "every run left the same documents and rows" : "runs differ");
        return allSame ? 0 : 1;
    }

    private static String sample(RunContents.Difference d) {
        return d.extra().entrySet().stream()
                .filter(e -> !e.getValue().isEmpty() || !d.missing().get(e.getKey()).isEmpty())
                .map(e -> e.getKey() + " +" + e.getValue().size() + " -" + d.missing().get(e.getKey()).size())
                .collect(Collectors.joining(", ")) + "; first extra: " + d.extra().values().stream()
                .flatMap(List::stream).findFirst().orElse("none");
    }

    /**
     * One run on fresh servers: the input sent, {@code ./engram run} to its end (killed once when {@code killAt} is
     * a fraction of the turns indexed, after a checkpoint, then started again), and what it left.
     */
    private RunContents oneRun(Path dir, int partitionCount, List<LocomoData.Conversation> input, List<String> tenants,
                               double killAt) throws Exception {
        PrintWriter progress = spec.commandLine().getErr();
        Files.createDirectories(dir);
        try (EmbeddedStack stack = EmbeddedStack.start(EmbeddedStack.Config.all(Optional.empty()), (s, a) -> { })) {
            Properties p = LocalPipeline.embedded(stack, true);
            p.setProperty("kafka.partitions", String.valueOf(partitionCount));
            p.setProperty("state.dir", dir.resolve("state").toString());
            PipelineConfig pipeline = PipelineConfig.fromProperties(p);
            EngramSetup.prepare(pipeline, step -> { });
            int turns = EvalLocomoCommand.produce(pipeline.kafka(), input);
            Path config = dir.resolve("engram.properties");
            try (var writer = Files.newBufferedWriter(config)) {
                p.store(writer, "eval determinism: " + dir.getFileName());
            }
            progress.printf(Locale.ROOT, "[determinism] %s: %d turns sent over %d partitions%n", dir.getFileName(), turns,
                    partitionCount);
            progress.flush();
            if (killAt >= 0) {
                Path killedLog = dir.resolve("killed.log");
                Process doomed = run(config, killedLog);
                long target = Math.round(killAt * turns);
                Path checkpoints = dir.resolve("state").resolve(EngramHome.safe(pipeline.consumerGroup())); // run's layout
                awaitOrFail(doomed, killedLog, () -> LocalPipeline.latestCheckpoint(checkpoints).isPresent()
                        && indexedTurns(pipeline, tenants) >= target);
                doomed.destroyForcibly().waitFor();
                progress.printf(Locale.ROOT, "[determinism] %s: killed with SIGKILL (exit %d) at %d turns indexed, after %s%n",
                        dir.getFileName(), doomed.exitValue(), indexedTurns(pipeline, tenants),
                        LocalPipeline.latestCheckpoint(checkpoints).map(Path::getFileName).orElse(null));
                progress.flush();
            }
            Path log = dir.resolve("run.log");
            Process process = run(config, log);
            if (!process.waitFor(RUN_PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
                throw new IllegalStateException("the run did not end within " + RUN_PATIENCE + ": " + log);
            }
            if (process.exitValue() != 0 || !Files.readString(log).contains("the bounded run ended: ")) {
                throw new IllegalStateException("the run failed (exit " + process.exitValue() + "): " + log);
            }
            return RunContents.read(pipeline.openSearch().url(), pipeline.index(), pipeline.postgresUrl(),
                    pipeline.postgresUser(), tenants);
        }
    }

    /**
     * {@code ./engram run --config FILE} as a process of its own, its output in {@code log}: this JVM's command line
     * (what {@code ./engram} started it with: options, {@code --add-opens}, classpath) with {@code run}'s arguments.
     */
    private static Process run(Path config, Path log) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), EngramCli.class.getName(), "run",
                "--config", config.toString()));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void awaitOrFail(Process process, Path log, Check check) throws Exception {
        long deadline = System.nanoTime() + RUN_PATIENCE.toNanos();
        while (!check.holds()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the run ended (exit " + process.exitValue() + ") before it was to be killed");
            }
            if (Files.readString(log).contains("the bounded run ended: ")) {
                process.destroyForcibly().waitFor();
                throw new IllegalStateException("the job ended before a checkpoint and the point to kill it");
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly().waitFor();
                throw new IllegalStateException("the run did not reach the point to kill it within " + RUN_PATIENCE);
            }
            Thread.sleep(200);
        }
    }

    /** The turns the run has indexed so far; 0 before the index exists. */
    private static long indexedTurns(PipelineConfig pipeline, List<String> tenants) {
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(pipeline.openSearch().url(), pipeline.index(),
                RetryPolicy.DEFAULT)) {
            long n = 0;
            for (String tenant : tenants) {
                n += store.count(tenant, Set.of(RecordType.TURN));
            }
            return n;
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
