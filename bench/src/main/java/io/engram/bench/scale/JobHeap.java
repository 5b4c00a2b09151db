package io.engram.bench.scale;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live heap of a JVM process: {@code jcmd PID GC.run}, then the heap in use after that full collection
 * ({@code GC.heap_info}), and the heap's size. What stays after a full GC is what the process holds, not what it
 * has not collected yet: the number that must not grow with the records.
 */
final class JobHeap {

    private static final Pattern USED = Pattern.compile("total (\\d+)K, used (\\d+)K");
    /** A row of {@code GC.class_histogram}: rank, instances, bytes, class name (and module). */
    private static final Pattern HISTOGRAM_ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)", Pattern.MULTILINE);

    private JobHeap() {
    }

    /** Bytes in use after a full collection, and the heap's committed size. */
    record Heap(long usedBytes, long committedBytes) {
    }

    /** The live objects of one class: what holds the heap. */
    record Held(String className, long instances, long bytes) {
    }

    /**
     * The classes holding the most live bytes, most first ({@code GC.class_histogram} counts reachable objects
     * only, after a full collection).
     */
    static List<Held> largest(long pid, int classes) throws IOException, InterruptedException {
        Matcher m = HISTOGRAM_ROW.matcher(jcmd(pid, "GC.class_histogram"));
        List<Held> held = new ArrayList<>();
        while (held.size() < classes && m.find()) {
            held.add(new Held(m.group(3), Long.parseLong(m.group(1)), Long.parseLong(m.group(2))));
        }
        return held;
    }

    static Heap afterFullGc(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        // one line for G1's heap, one per generation for the parallel and serial collectors
        Matcher m = USED.matcher(jcmd(pid, "GC.heap_info"));
        long used = 0;
        long committed = 0;
        while (m.find()) {
            used += Long.parseLong(m.group(2)) * 1024;
            committed += Long.parseLong(m.group(1)) * 1024;
        }
        if (committed == 0) {
            throw new IllegalStateException("jcmd " + pid + " GC.heap_info printed no heap size");
        }
        return new Heap(used, committed);
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("jcmd", String.valueOf(pid), command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("jcmd " + pid + " " + command + " failed: " + out);
        }
        return out;
    }
}
