package io.engram.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link JobHeap} read from this JVM by {@code jcmd}, as the bench reads the job's process. */
class JobHeapTest {

    @Test
    void theLargestHoldersAreClassesWithTheirLiveBytesMostFirst() throws Exception {
        long pid = ProcessHandle.current().pid();
        List<JobHeap.Held> held = JobHeap.largest(pid, 5);

        assertThat(held).hasSize(5);
        assertThat(held).extracting(JobHeap.Held::bytes).isSortedAccordingTo((a, b) -> Long.compare(b, a));
        assertThat(held).allSatisfy(h -> {
            assertThat(h.instances()).isPositive();
            assertThat(h.bytes()).isGreaterThanOrEqualTo(h.instances()); // every object takes at least a byte
        });
        assertThat(held).extracting(JobHeap.Held::className).doesNotHaveDuplicates().allMatch(name -> !name.isBlank());
        JobHeap.Heap heap = JobHeap.afterFullGc(pid);
        assertThat(heap.usedBytes()).isPositive().isLessThanOrEqualTo(heap.committedBytes())
                .isGreaterThanOrEqualTo(held.stream().mapToLong(JobHeap.Held::bytes).sum() / 2);
    }
}
