package io.engram.launcher;

import io.engram.cluster.FlinkRest;
import io.engram.cluster.StandaloneCluster;
import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedStack;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobID;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./engram cluster}: a real Flink standalone session cluster on this machine (separate JobManager and
 * TaskManager processes), and the shaded job jar submitted to it — or to any Flink 2.2 cluster — over REST.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = "A real Flink standalone cluster, and the Engram job on it.",
        subcommands = {ClusterCommand.Up.class, ClusterCommand.Submit.class, ClusterCommand.Stop.class})
final class ClusterCommand {

    /** The checkout ./engram runs from (the script passes it); the jar and the Flink lib folder are built there. */
    static Path root() {
        return Path.of(System.getProperty("engram.root", ".")).toAbsolutePath().normalize();
    }

    /** Flink's jars, and the job's native-code dependencies that Flink must load from its own classpath. */
    static List<Path> defaultLib() {
        return List.of(root().resolve("cluster/target/flink-lib"), root().resolve("jobs/target/native-lib"));
    }

    /** The shaded job jar the jobs module builds: {@code jobs/target/engram-jobs-VERSION-job.jar}. */
    static Path defaultJobJar() throws IOException {
        try (Stream<Path> jars = Files.list(root().resolve("jobs/target"))) {
            return jars.filter(p -> p.getFileName().toString().matches("engram-jobs-.*-job\\.jar")).findFirst()
                    .orElseThrow(() -> new IOException("no job jar in " + root().resolve("jobs/target")
                            + " (mvn -B -ntp -pl jobs -am package builds it)"));
        }
    }

    /** The pipeline's settings as the job's program arguments, so a cluster needs no file of ours. */
    static List<String> programArgs(Properties props) {
        List<String> args = new ArrayList<>();
        for (String key : props.stringPropertyNames().stream().sorted().toList()) {
            args.add("--" + key);
            args.add(props.getProperty(key));
        }
        return args;
    }

    @Command(name = "up", mixinStandardHelpOptions = true,
            description = {"Start a Flink standalone cluster as separate processes and stay up until Ctrl-C.",
                    "A JobManager and TaskManagers with RocksDB state, checkpoints and savepoints under --home; prints",
                    "the REST address and stops cleanly on Ctrl-C or SIGTERM."})
    static final class Up implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Option(names = "--taskmanagers", defaultValue = "2", description = "TaskManager processes (default ${DEFAULT-VALUE})")
        int taskManagers;

        @Option(names = "--slots", defaultValue = "1", description = "slots per TaskManager (default ${DEFAULT-VALUE})")
        int slots;

        @Option(names = "--rest-port", defaultValue = "8081", description = "REST and web UI port (default ${DEFAULT-VALUE})")
        int restPort;

        @Option(names = "--home", defaultValue = DEFAULT_HOME, paramLabel = "DIR",
                description = "config, logs, checkpoints and savepoints (default ${DEFAULT-VALUE})")
        Path home;

        @Option(names = "--stack", description = {"also start the embedded Kafka, OpenSearch and PostgreSQL, and write",
                "their addresses to HOME/pipeline.properties (what `cluster submit` uses by default)"})
        boolean stack;

        @Option(names = "--lib", split = ",", paramLabel = "DIR",
                description = "folders of the processes' jars (default: cluster/target/flink-lib,jobs/target/native-lib)")
        List<Path> lib;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            try (UntilStopped untilStopped = new UntilStopped("engram-cluster");
                 EmbeddedStack services = stack ? startStack(out) : null;
                 StandaloneCluster cluster = StandaloneCluster.start(new StandaloneCluster.Options(home,
                         lib != null ? lib : defaultLib(), taskManagers, slots, restPort, Map.of()))) {
                out.println("jobmanager: " + cluster.restUrl() + " (REST and web UI)");
                out.println("taskmanagers: " + cluster.taskManagerIds() + ", " + slots + " slot(s) each");
                out.println("logs, checkpoints, savepoints: " + cluster.home());
                out.println("ready (Ctrl-C to stop)");
                out.flush();
                untilStopped.await();
            }
            return 0;
        }

        /** The embedded services, and a settings file naming them for {@code cluster submit}. */
        private EmbeddedStack startStack(PrintWriter out) throws IOException {
            Properties settings = new Properties();
            EmbeddedStack services = EmbeddedStack.start(EmbeddedStack.Config.all(Optional.empty()), (service, address) -> {
                switch (service) {
                    case KAFKA -> settings.setProperty("kafka.bootstrap", address);
                    case OPENSEARCH -> settings.setProperty("opensearch.url", address);
                    case POSTGRES -> {
                        settings.setProperty("postgres.url", address);
                        settings.setProperty("postgres.user", EmbeddedPostgreSql.USER);
                    }
                }
                out.println(service.name().toLowerCase(Locale.ROOT) + ": " + address);
                out.flush();
            });
            Files.createDirectories(home);
            try (var file = Files.newBufferedWriter(home.resolve(STACK_SETTINGS))) {
                settings.store(file, "the embedded services of ./engram cluster up --stack");
            }
            out.println("settings: " + home.resolve(STACK_SETTINGS));
            return services;
        }
    }

    /** Where {@code cluster up --stack} writes the embedded services' addresses (under the cluster's home). */
    static final String STACK_SETTINGS = "pipeline.properties";
    static final String DEFAULT_HOME = ".engram/cluster";

    /** A checkpoint or savepoint given as a local path or {@code file:} URI; empty for a remote one (s3://…). */
    static Optional<Path> localPath(String location) {
        if (location.startsWith("file:")) {
            return Optional.of(Path.of(java.net.URI.create(location)));
        }
        return location.contains("://") ? Optional.empty() : Optional.of(Path.of(location));
    }

    /** The JobManager {@code submit} and {@code stop} talk to. */
    static final class JobManager {

        @Option(names = "--rest", defaultValue = "http://127.0.0.1:8081", description = "the JobManager (default ${DEFAULT-VALUE})")
        String url;

        FlinkRest rest() {
            return new FlinkRest(url);
        }
    }

    @Command(name = "submit", mixinStandardHelpOptions = true,
            description = {"Submit the Engram job to a running cluster and print its job id.",
                    "Creates the topics and applies the migrations the job needs, uploads the job jar over REST and",
                    "runs it with the settings of a properties file (docs/operations.md)."})
    static final class Submit implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        JobManager jobManager;

        @Option(names = "--config", converter = ExistingPath.class, paramLabel = "FILE",
                description = "pipeline properties (default: .engram/cluster/pipeline.properties, from `cluster up --stack`)")
        Path config;

        @Option(names = "--parallelism", description = "job parallelism (default: the file's `parallelism`, else the cluster's)")
        Integer parallelism;

        @Option(names = "--from-savepoint", paramLabel = "PATH", description = "restore from this savepoint or checkpoint")
        String savepoint;

        @Option(names = "--resume", description = "restore from the newest checkpoint or savepoint retained under --home"
                + " (after the JobManager or the machine was lost)")
        boolean resume;

        @Option(names = "--home", defaultValue = DEFAULT_HOME, paramLabel = "DIR",
                description = "the cluster's home, where --resume looks (default ${DEFAULT-VALUE})")
        Path home;

        @Option(names = "--jar", converter = ExistingPath.class, paramLabel = "FILE", description = "job jar (default: jobs/target/engram-jobs-*-job.jar)")
        Path jar;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            Path settings = config != null ? config : Path.of(DEFAULT_HOME).resolve(STACK_SETTINGS);
            if (!Files.exists(settings)) {
                spec.commandLine().getErr().println("no settings at " + settings
                        + ": give --config FILE, or start the cluster with ./engram cluster up --stack");
                return 2;
            }
            Properties props = RunCommand.load(settings);
            if (parallelism != null) {
                props.setProperty("parallelism", String.valueOf(parallelism));
            }
            PipelineConfig pipeline = PipelineConfig.fromProperties(props);
            PipelineIdentity now = PipelineIdentity.of(pipeline);
            String restoreFrom = restorePoint(out).orElse(null);
            if (restoreFrom != null) {
                localPath(restoreFrom).ifPresent(p -> PipelineState.check(p, now, "submit it without --resume or"
                        + " --from-savepoint (a job without state), or with another kafka.group", out::println));
            } else {
                LocalPipeline.refuseLostState(props, pipeline, "--resume or --from-savepoint PATH");
            }
            EngramSetup.prepare(pipeline, out::println);
            JobID job = new JobID();
            if (Files.isDirectory(home.resolve("conf"))) { // a cluster up made here: its checkpoints go under home
                new PipelineState(home.resolve("checkpoints")).record(job, PipelineIdentity.of(pipeline));
            }
            FlinkRest flink = jobManager.rest();
            String jarId = flink.uploadJar(jar != null ? jar : defaultJobJar());
            String jobId = flink.run(jarId, new FlinkRest.RunRequest(EngramJob.class.getName(),
                    pipeline.parallelism(), programArgs(props), restoreFrom, job.toHexString()));
            out.println("job: " + jobId + " (" + jobManager.url + "/#/job/running/" + jobId + "/overview)");
            return 0;
        }

        /** What the job restores: {@code --from-savepoint}, with {@code --resume} the newest under {@code --home}, or none. */
        private Optional<String> restorePoint(PrintWriter out) {
            if (!resume) {
                return Optional.ofNullable(savepoint);
            }
            if (savepoint != null) {
                throw new Refusal("give --resume or --from-savepoint, not both");
            }
            Path newest = LocalPipeline.latestCheckpoint(home.resolve("checkpoints"), home.resolve("savepoints"))
                    .orElseThrow(() -> new Refusal("nothing to resume from: no checkpoint or savepoint under "
                            + home.toAbsolutePath()));
            out.println("resuming from " + newest);
            return Optional.of(newest.toUri().toString());
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true,
            description = {"Stop a job with a savepoint and print the savepoint's location.",
                    "Resubmit with --from-savepoint, at any parallelism. --drain first fires every event-time timer",
                    "(a final stop)."})
    static final class Stop implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        JobManager jobManager;

        @Option(names = "--job", required = true, description = "job id")
        String job;

        @Option(names = "--drain", description = "advance event time to the end before stopping")
        boolean drain;

        @Option(names = "--home", defaultValue = DEFAULT_HOME, paramLabel = "DIR",
                description = "the cluster's home: what the job was written for goes into its savepoint (default ${DEFAULT-VALUE})")
        Path home;

        @Override
        public Integer call() throws Exception {
            String location = jobManager.rest().stopWithSavepoint(job, drain);
            spec.commandLine().getOut().println("savepoint: " + location);
            Path identity = home.resolve("checkpoints").resolve(job).resolve(PipelineState.IDENTITY);
            Optional<Path> savepoint = localPath(location).filter(Files::isDirectory);
            if (Files.isRegularFile(identity) && savepoint.isPresent()) {
                Files.copy(identity, savepoint.get().resolve(PipelineState.IDENTITY));
            }
            return 0;
        }
    }
}
