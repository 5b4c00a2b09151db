package io.engram.stack;

import java.time.Duration;

final class Waits {

    private Waits() {
    }

    /** Sleeps between polls of a readiness condition. */
    static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
