package io.engram.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.openjdk.jmh.Main;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code ./engram bench jmh [JMH options] [BENCHMARK…]}: the JMH benchmarks of this module, run with JMH's own
 * command line (forks inherit this JVM's classpath, so no fat jar is needed).
 */
@Command(name = "jmh",
        description = {"Run the JMH benchmarks with JMH's own options.",
                "PartitionBenchmark, EmbeddingBenchmark, EntityMentionsBenchmark, CollapseBenchmark; e.g. `jmh PartitionBenchmark -f 3`,",
                "`jmh -h` for JMH's options."})
final class BenchJmhCommand implements Callable<Integer> {

    @Unmatched
    List<String> jmhArguments = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        Main.main(jmhArguments.toArray(String[]::new)); // JMH's own handling of -h, -l, -lp, …; it exits on errors
        return 0;
    }
}
