package io.engram.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * CPU time this process spent, by thread group, between two snapshots: where a benchmark phase's CPU went.
 * On a saturated machine the CPU per record is what throughput is made of, and unlike a rate it does not move
 * with the machine's speed from one minute to the next. Threads are grouped by name with digits removed; what
 * no thread accounts for (garbage collection and the JIT compilers, which are not Java threads, and threads
 * that ended between two snapshots) is reported as one remainder.
 */
final class CpuAccount {

    private static final String REMAINDER = "GC, JIT and unseen threads";

    private final long processNanos;
    private final Map<Long, Long> threadNanos;
    private final Map<Long, String> threadGroups;
    private final long compilingMillis;
    private final long collectingMillis;
    private final long takenAtNanos = System.nanoTime();

    private CpuAccount(long processNanos, Map<Long, Long> threadNanos, Map<Long, String> threadGroups,
                       long compilingMillis, long collectingMillis) {
        this.processNanos = processNanos;
        this.threadNanos = threadNanos;
        this.threadGroups = threadGroups;
        this.compilingMillis = compilingMillis;
        this.collectingMillis = collectingMillis;
    }

    static CpuAccount now() {
        return sample(Map.of(), Map.of());
    }

    /** When this snapshot was taken, on {@link System#nanoTime()}'s clock. */
    long takenAtNanos() {
        return takenAtNanos;
    }

    /**
     * A new snapshot that keeps, for threads that have ended since this one, their CPU time as last seen: taken
     * often enough, it accounts for short-lived threads too.
     */
    CpuAccount updated() {
        return sample(threadNanos, threadGroups);
    }

    private static CpuAccount sample(Map<Long, Long> lastSeen, Map<Long, String> knownGroups) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<Long, Long> nanos = new HashMap<>(lastSeen);
        Map<Long, String> groups = new HashMap<>(knownGroups);
        for (long id : threads.getAllThreadIds()) {
            long cpu = threads.getThreadCpuTime(id);
            if (cpu < 0) {
                continue;
            }
            if (!groups.containsKey(id)) {
                ThreadInfo info = threads.getThreadInfo(id);
                if (info == null) {
                    continue;
                }
                groups.put(id, group(info.getThreadName()));
            }
            nanos.put(id, cpu);
        }
        long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        long collecting = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
        return new CpuAccount(process, nanos, groups,
                ManagementFactory.getCompilationMXBean().getTotalCompilationTime(), collecting);
    }

    /** A thread's group: its name without digits, Flink's subtask suffix and OpenSearch's node prefix. */
    static String group(String threadName) {
        return threadName.replaceAll("\\s*\\(\\d+/\\d+\\)#\\d+$", "")
                .replaceAll("^opensearch\\[[^]]*]\\[", "opensearch[")
                .replaceAll("\\d+", "#");
    }

    /** CPU milliseconds per record since {@code start}, by group, largest first, groups under 1 % folded. */
    String perRecordSince(CpuAccount start, int records) {
        Map<String, Long> byGroup = new HashMap<>();
        long accounted = 0;
        for (Map.Entry<Long, Long> thread : threadNanos.entrySet()) {
            long spent = thread.getValue() - start.threadNanos.getOrDefault(thread.getKey(), 0L);
            byGroup.merge(threadGroups.get(thread.getKey()), spent, Long::sum);
            accounted += spent;
        }
        long total = processNanos - start.processNanos;
        byGroup.merge(REMAINDER, Math.max(0, total - accounted), Long::sum);
        long small = byGroup.values().stream().filter(n -> n < total / 100).mapToLong(Long::longValue).sum();
        String parts = byGroup.entrySet().stream()
                .filter(e -> e.getValue() >= total / 100)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), perRecord(e.getValue(), records)))
                .collect(Collectors.joining(", "));
        return String.format(Locale.ROOT, "CPU %.2f ms per record: %s, the rest %.2f (JIT compiling %.2f, GC %.2f)",
                perRecord(total, records), parts, perRecord(small, records),
                perRecord((compilingMillis - start.compilingMillis) * 1_000_000, records),
                perRecord((collectingMillis - start.collectingMillis) * 1_000_000, records));
    }

    private static double perRecord(long nanos, int records) {
        return nanos / 1e6 / records;
    }
}
