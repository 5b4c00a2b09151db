package io.engram.launcher;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A foreground command's wait for Ctrl-C (or any request to stop the JVM): {@link #await} returns when the stop
 * is asked; the JVM exits only once {@link #close} says the command has stopped what it started (the embedded
 * PostgreSQL is a child process), or after 60 s.
 */
final class UntilStopped implements AutoCloseable {

    private final CountDownLatch stop = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);

    UntilStopped(String name) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.countDown();
            try {
                stopped.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name + "-shutdown"));
    }

    void await() throws InterruptedException {
        stop.await();
    }

    @Override
    public void close() {
        stopped.countDown();
    }
}
