package io.engram.bench.scale;

import io.engram.launcher.EngramCli;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./engram run --config FILE} (or another {@code ./engram} command) as a process of its own, on this JVM's
 * classpath, its output in a log: the job as a deployment runs it, apart from the servers, so that its CPU, heap
 * and death are its own.
 */
final class JobProcess implements AutoCloseable {

    private final Process process;
    private final long startedNanos = System.nanoTime();
    private Duration lastCpu = Duration.ZERO;

    private JobProcess(Process process) {
        this.process = process;
    }

    /** {@code ./engram run --config config} with a heap of {@code heap} (e.g. {@code 1g}). */
    static JobProcess run(Path config, Path log, String heap) throws IOException {
        return start(log, heap, "run", "--config", config.toString());
    }

    /** Any {@code ./engram} command. */
    static JobProcess start(Path log, String heap, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap, "-XX:TieredStopAtLevel=1"));
        // Flink's --add-opens on Java 17, as this JVM got them (from ./engram or from Surefire)
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(a -> a.startsWith("--add-opens"))
                .forEach(command::add);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), EngramCli.class.getName()));
        command.addAll(List.of(args));
        return new JobProcess(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start());
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Since the process started. */
    Duration age() {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    /** The CPU time the process has used so far, all of its threads (once it has ended, as last seen). */
    Duration cpu() {
        process.info().totalCpuDuration().ifPresent(cpu -> lastCpu = cpu);
        return lastCpu;
    }

    /** SIGKILL: no shutdown hook, no last checkpoint. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    /** Waits for the process to end by itself; its exit value, or -1 after {@code patience} (then it is killed). */
    int awaitExit(Duration patience) throws InterruptedException {
        if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
            return -1;
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
