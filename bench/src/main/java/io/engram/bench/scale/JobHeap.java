package io.engram.bench.scale;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live heap of a JVM process: {@code jcmd PID GC.run}, then the heap in use after that full collection
 * ({@code GC.heap_info}), and the heap's size. What stays after a full GC is what the process holds, not what it
 * has not collected yet: the number that must not grow with the records.
 */
final class JobHeap {

    private static final Pattern USED = Pattern.compile("total (\\d+)K, used (\\d+)K");

    private JobHeap() {
    }

    /** Bytes in use after a full collection, and the heap's committed size. */
    record Heap(long usedBytes, long committedBytes) {
    }

    static Heap afterFullGc(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        Matcher m = USED.matcher(jcmd(pid, "GC.heap_info"));
        if (!m.find()) {
            throw new IllegalStateException("jcmd " + pid + " GC.heap_info printed no heap size");
        }
        return new Heap(Long.parseLong(m.group(2)) * 1024, Long.parseLong(m.group(1)) * 1024);
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
