package io.engram.cluster;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The config.yaml of a standalone cluster on this machine, as flat Flink keys. */
final class FlinkConfig {

    private FlinkConfig() {
    }

    static Map<String, String> settings(Path home, int restPort, int rpcPort, int slots, Map<String, String> extra) {
        Map<String, String> s = new LinkedHashMap<>();
        // one machine: every address on the loopback interface
        s.put("jobmanager.rpc.address", "127.0.0.1");
        s.put("jobmanager.rpc.port", String.valueOf(rpcPort));
        s.put("jobmanager.bind-host", "127.0.0.1");
        s.put("taskmanager.host", "127.0.0.1");
        s.put("taskmanager.bind-host", "127.0.0.1");
        s.put("rest.address", "127.0.0.1");
        s.put("rest.bind-address", "127.0.0.1");
        s.put("rest.port", String.valueOf(restPort));
        // small processes: the job's ONNX model and embedding cache live on the task heap
        s.put("jobmanager.memory.process.size", "1024m");
        s.put("taskmanager.memory.process.size", "2048m");
        s.put("taskmanager.memory.managed.fraction", "0.2");
        s.put("taskmanager.numberOfTaskSlots", String.valueOf(slots));
        // each TaskManager's working directory (its copies of job jars, local state) under the home too: in /tmp, a
        // TaskManager killed before it cleaned up left its jars there, and a reused resource id found them all
        s.put("process.taskmanager.working-dir", home.resolve("taskmanagers").toString());
        // state: RocksDB, incremental checkpoints and savepoints under the cluster's home
        s.put("state.backend.type", "rocksdb");
        s.put("execution.checkpointing.incremental", "true");
        s.put("execution.checkpointing.dir", home.resolve("checkpoints").toUri().toString());
        s.put("execution.checkpointing.savepoint-dir", home.resolve("savepoints").toUri().toString());
        s.put("execution.checkpointing.num-retained", "3");
        // kept when a job is cancelled or lost with its JobManager: a restart point without a savepoint
        s.put("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        // a lost TaskManager is noticed in seconds, not the default 50 s
        s.put("heartbeat.interval", "2000");
        s.put("heartbeat.timeout", "10000");
        // many attempts: a replacement TaskManager can first be handed redeploys to the lost one's stale slot
        s.put("restart-strategy.type", "fixed-delay");
        s.put("restart-strategy.fixed-delay.attempts", "50");
        s.put("restart-strategy.fixed-delay.delay", "2 s");
        s.put("web.refresh-interval", "500");
        s.put("web.submit.enable", "true");
        s.put("web.upload.dir", home.resolve("jars").toString());
        s.put("metrics.reporter.prom.factory.class", "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        s.put("metrics.reporter.prom.port", "9250-9299");
        s.putAll(extra);
        return s;
    }

    /** Flat YAML: one {@code key: value} line each, values single-quoted. */
    static String render(Map<String, String> settings) {
        StringBuilder yaml = new StringBuilder("# written by ./engram cluster up\n");
        settings.forEach((k, v) -> yaml.append(k).append(": '").append(v.replace("'", "''")).append("'\n"));
        return yaml.toString();
    }
}
