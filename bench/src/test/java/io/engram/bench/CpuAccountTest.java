package io.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class CpuAccountTest {

    /** Where the busy loop's result goes, so the JIT cannot drop the loop. */
    private static volatile long sink;

    @Test
    void threadsOfOneKindShareAGroup() {
        assertThat(CpuAccount.group("compact sessions -> Process (1/2)#0")).isEqualTo("compact sessions -> Process");
        assertThat(CpuAccount.group("opensearch[Node 1][write][T#3]")).isEqualTo("opensearch[write][T##]");
        assertThat(CpuAccount.group("engram-embedder")).isEqualTo("engram-embedder");
        assertThat(CpuAccount.group("kafka-producer-network-thread | producer-12"))
                .isEqualTo("kafka-producer-network-thread | producer-#");
    }

    @Test
    void aThreadThatEndedBetweenSnapshotsKeepsTheCpuLastSeen() throws Exception {
        CountDownLatch worked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread busy = new Thread(() -> {
            long sum = 0;
            long until = System.nanoTime() + 300_000_000L; // 0.3 s of CPU, to be seen above the 1 % fold
            while (System.nanoTime() < until) {
                sum += Long.numberOfTrailingZeros(sum + until);
            }
            worked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            sink = sum;
        }, "cpu-account-test-worker");
        CpuAccount start = CpuAccount.now();
        busy.start();
        worked.await();
        CpuAccount seen = start.updated();
        release.countDown();
        busy.join();

        String report = seen.updated().perRecordSince(start, 1);

        assertThat(report).contains("cpu-account-test-worker ");
    }
}
