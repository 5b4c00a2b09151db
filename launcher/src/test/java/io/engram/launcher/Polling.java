package io.engram.launcher;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * How a test waits for what the asynchronous pipeline does: it polls a check until it holds and fails once a
 * deadline passes (never asserting on how long it took).
 */
final class Polling {

    interface Check {
        boolean holds() throws Exception;
    }

    private Polling() {
    }

    static void await(String what, Duration patience, Check check) throws Exception {
        await(what, patience, check, () -> "");
    }

    /** As {@link #await(String, Duration, Check)}, with {@code explain} added to the failure. */
    static void await(String what, Duration patience, Check check, Callable<String> explain) throws Exception {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": not reached in " + patience + explain.call());
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
    }
}
