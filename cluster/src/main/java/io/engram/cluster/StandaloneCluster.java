package io.engram.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Flink standalone session cluster on this machine: one JobManager process and any number of
 * TaskManager processes, each a separate JVM running Flink's own entry points from the jars of lib folders
 * (what flink-dist's {@code lib/} holds, which the build copies to {@code cluster/target/flink-lib}, plus the
 * job's native-code dependencies from {@code jobs/target/native-lib}). The
 * processes' memory flags come from Flink's BashJavaUtils, as flink-dist's scripts do. Under {@link
 * Options#home()}: {@code conf/} (config.yaml, log4j), {@code log/}, {@code checkpoints/}, {@code savepoints/}.
 */
public final class StandaloneCluster implements AutoCloseable {

    static final String JOB_MANAGER_MAIN = "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    static final String TASK_MANAGER_MAIN = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
    private static final String BASH_JAVA_UTILS = "org.apache.flink.runtime.util.bash.BashJavaUtils";
    private static final String RESULT_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);

    /** The {@code --add-opens} set flink-dist puts in its JVM options; without it Java 17 breaks job submission. */
    private static final List<String> ADD_OPENS = readAddOpens();

    /**
     * Where the cluster lives and how big it is. {@code lib}: folders whose jars form the processes' classpath.
     * {@code restPort} 0 picks a free port; {@code extraConfig} overrides or adds Flink settings (config.yaml keys).
     */
    public record Options(Path home, List<Path> lib, int taskManagers, int slotsPerTaskManager, int restPort,
                          Map<String, String> extraConfig) {

        public Options {
            Objects.requireNonNull(home, "home");
            lib = List.copyOf(lib);
            if (taskManagers < 0 || slotsPerTaskManager < 1) {
                throw new IllegalArgumentException("taskManagers >= 0 and slotsPerTaskManager >= 1");
            }
            extraConfig = Map.copyOf(extraConfig);
        }

        public static Options of(Path home, List<Path> lib, int taskManagers) {
            return new Options(home, lib, taskManagers, 1, 0, Map.of());
        }
    }

    private final Options options;
    private final Path conf;
    private final String classpath;
    private final FlinkRest rest;
    private final Process jobManager;
    private final Map<String, Process> taskManagers = new LinkedHashMap<>();
    private int taskManagersStarted;
    private boolean closed;

    private StandaloneCluster(Options options, Path conf, String classpath, int restPort, Process jobManager) {
        this.options = options;
        this.conf = conf;
        this.classpath = classpath;
        this.rest = new FlinkRest("http://127.0.0.1:" + restPort);
        this.jobManager = jobManager;
    }

    /** Starts the JobManager and the TaskManagers; returns when all TaskManagers registered. */
    public static StandaloneCluster start(Options options) throws IOException, InterruptedException {
        List<String> jars = new ArrayList<>();
        for (Path lib : options.lib()) {
            if (!Files.isDirectory(lib)) {
                throw new IllegalArgumentException("no lib folder at " + lib + " (mvn -B -ntp package builds it)");
            }
            try (Stream<Path> files = Files.list(lib)) {
                files.filter(p -> p.toString().endsWith(".jar")).map(p -> p.toAbsolutePath().toString()).sorted()
                        .forEach(jars::add);
            }
        }
        String classpath = String.join(java.io.File.pathSeparator, jars);
        Path home = options.home().toAbsolutePath();
        Path conf = Files.createDirectories(home.resolve("conf"));
        Files.createDirectories(home.resolve("log"));
        int restPort = options.restPort() == 0 ? freePort() : options.restPort();
        Files.writeString(conf.resolve("config.yaml"), FlinkConfig.render(FlinkConfig.settings(home, restPort,
                freePort(), options.slotsPerTaskManager(), options.extraConfig())));
        try (InputStream log4j = StandaloneCluster.class.getResourceAsStream("/engram/cluster/log4j.properties")) {
            Files.write(conf.resolve("log4j.properties"), Objects.requireNonNull(log4j).readAllBytes());
        }
        Process jm = launch(home, conf, classpath, "GET_JM_RESOURCE_PARAMS", JOB_MANAGER_MAIN, "jobmanager", List.of());
        StandaloneCluster cluster = new StandaloneCluster(options, conf, classpath, restPort, jm);
        // child processes outlive their parent: stop them when this JVM exits without closing the cluster
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                cluster.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "flink-cluster-shutdown"));
        try {
            cluster.rest.awaitReady(READY_TIMEOUT, jm);
            for (int i = 0; i < options.taskManagers(); i++) {
                cluster.startTaskManager();
            }
            cluster.awaitTaskManagers(options.taskManagers());
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Starts one more TaskManager process (e.g. the replacement of a lost one) and returns its resource id. */
    public synchronized String startTaskManager() throws IOException, InterruptedException {
        String id = "taskmanager-" + (++taskManagersStarted);
        Process tm = launch(options.home().toAbsolutePath(), conf, classpath, "GET_TM_RESOURCE_PARAMS", TASK_MANAGER_MAIN,
                id, List.of("-D", "taskmanager.resource-id=" + id));
        taskManagers.put(id, tm);
        return id;
    }

    /** Kills a TaskManager the way a lost machine does: SIGKILL, no shutdown hooks, no goodbye to the JobManager. */
    public synchronized void killTaskManager(String id) throws InterruptedException {
        Process tm = taskManagers.remove(id);
        if (tm == null) {
            throw new IllegalArgumentException("no running TaskManager " + id + "; running: " + taskManagers.keySet());
        }
        tm.destroyForcibly(); // SIGKILL on Linux
        tm.waitFor();
    }

    /** Waits until {@code count} TaskManagers are registered with the JobManager. */
    public void awaitTaskManagers(int count) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (rest.taskManagerCount() != count) {
            if (System.nanoTime() > deadline) {
                throw new IOException("TaskManagers registered: " + rest.taskManagerCount() + ", expected " + count
                        + "; see " + options.home().resolve("log"));
            }
            checkAlive();
            TimeUnit.MILLISECONDS.sleep(200);
        }
    }

    public synchronized List<String> taskManagerIds() {
        return List.copyOf(taskManagers.keySet());
    }

    public FlinkRest rest() {
        return rest;
    }

    public String restUrl() {
        return rest.baseUrl();
    }

    public Path home() {
        return options.home().toAbsolutePath();
    }

    /**
     * Kills every process at once with SIGKILL, as a lost machine or a crash of the JobManager's host does: no
     * shutdown hook, no savepoint, no goodbye. What is left is what was on disk: the retained checkpoints.
     */
    public synchronized void kill() throws InterruptedException {
        List<Process> all = takeAll();
        for (Process p : all) {
            p.destroyForcibly();
        }
        for (Process p : all) {
            p.waitFor();
        }
    }

    /** Every process of the cluster, TaskManagers first, marking the cluster closed. */
    private List<Process> takeAll() {
        closed = true;
        List<Process> all = new ArrayList<>(taskManagers.values());
        all.add(jobManager);
        taskManagers.clear();
        return all;
    }

    /** Stops the TaskManagers, then the JobManager, with SIGTERM (Flink's own shutdown), waiting for each. */
    @Override
    public synchronized void close() throws InterruptedException {
        if (closed) {
            return;
        }
        List<Process> all = takeAll();
        for (Process p : all) {
            p.destroy();
        }
        for (Process p : all) {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        }
    }

    private void checkAlive() throws IOException {
        if (!jobManager.isAlive()) {
            throw new IOException("the JobManager exited with " + jobManager.exitValue() + "; see "
                    + options.home().resolve("log"));
        }
    }

    /** Starts one Flink process: memory flags from BashJavaUtils, then Flink's entry point with the config dir. */
    private static Process launch(Path home, Path conf, String classpath, String resourceCommand, String mainClass,
                                  String name, List<String> dynamic) throws IOException, InterruptedException {
        List<String> resources = bashJavaUtils(conf, classpath, resourceCommand);
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(List.of(resources.get(0).trim().split("\\s+")));
        command.addAll(ADD_OPENS);
        command.add("-Dlog.file=" + home.resolve("log").resolve(name + ".log"));
        command.add("-Dlog4j.configurationFile=file:" + conf.resolve("log4j.properties"));
        command.addAll(List.of("-cp", classpath, mainClass, "--configDir", conf.toString()));
        command.addAll(dynamic);
        if (resources.size() > 1) { // the -D settings BashJavaUtils derived (memory sizes)
            command.addAll(List.of(resources.get(1).trim().split("\\s+")));
        }
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("log").resolve(name + ".out").toFile());
        builder.environment().put("OPT_OUT_TRACKING", "true"); // the tokenizer library's telemetry
        builder.environment().put("FLINK_CONF_DIR", conf.toString());
        return builder.start();
    }

    /** Runs BashJavaUtils and returns its result lines: the JVM flags, then the dynamic settings. */
    private static List<String> bashJavaUtils(Path conf, String classpath, String command)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(javaExecutable(), "-cp", classpath, BASH_JAVA_UTILS, command,
                "--configDir", conf.toString()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("BashJavaUtils " + command + " failed:\n" + output);
        }
        List<String> results = output.lines().filter(l -> l.startsWith(RESULT_PREFIX))
                .map(l -> l.substring(RESULT_PREFIX.length())).toList();
        if (results.isEmpty()) {
            throw new IOException("BashJavaUtils " + command + " printed no result:\n" + output);
        }
        return results;
    }

    private static List<String> readAddOpens() {
        try (InputStream in = StandaloneCluster.class.getResourceAsStream("/engram/cluster/java17-add-opens.txt")) {
            return new String(Objects.requireNonNull(in).readAllBytes(), StandardCharsets.UTF_8).lines()
                    .map(String::trim).filter(l -> !l.isEmpty()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
