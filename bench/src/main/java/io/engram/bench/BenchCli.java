package io.engram.bench;

import io.engram.launcher.EngramCli;

/** {@code ./engram bench …}: the benchmarks' command line (the script runs it on the bench module's classpath). */
public final class BenchCli {

    private BenchCli() {
    }

    public static void main(String[] args) {
        System.exit(EngramCli.configured(new BenchCommand()).execute(args));
    }
}
