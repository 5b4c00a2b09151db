package io.engram.bench;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.RpcServiceSharing;

/**
 * A benchmark run's Flink clusters: one local MiniCluster per Flink configuration, kept for every job of the run, as
 * a deployment's cluster outlives its jobs. A MiniCluster per job (what {@code env.execute()} starts) loads Flink's
 * RPC system — Pekko and Scala, in a class loader of its own — afresh for each job, so the JIT compiles that code
 * again while the job is measured, and no warm-up job warms it.
 */
final class SharedMiniClusters implements AutoCloseable {

    private final Map<Map<String, String>, MiniCluster> clusters = new HashMap<>();

    /** Runs {@code job} to its end on the cluster of {@code flink} (started on first use, with {@code slots} slots). */
    void execute(JobGraph job, Configuration flink, int slots) throws Exception {
        MiniCluster cluster = clusters.get(flink.toMap());
        if (cluster == null) {
            cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                    .setConfiguration(flink)
                    .setNumTaskManagers(1)
                    .setNumSlotsPerTaskManager(slots)
                    .setRpcServiceSharing(RpcServiceSharing.SHARED)
                    .build());
            cluster.start();
            clusters.put(flink.toMap(), cluster);
        }
        cluster.executeJobBlocking(job);
    }

    @Override
    public void close() throws Exception {
        for (MiniCluster cluster : clusters.values()) {
            cluster.closeAsync().get();
        }
        clusters.clear();
    }
}
