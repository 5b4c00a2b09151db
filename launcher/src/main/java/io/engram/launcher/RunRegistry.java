package io.engram.launcher;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The {@code ./engram up} processes running on this machine for this user, so {@code ./engram status} finds one
 * without flags: each writes {@code up-PID.properties} in {@link EngramHome#runs()} once it is up (its process id
 * and start time, its API and the settings file with its servers' addresses) and removes it when it stops. A
 * record whose process is gone — an {@code up} killed with -9 — or whose process id now belongs to another
 * process (another start time) is stale: {@link #running} removes it and says so.
 */
final class RunRegistry {

    /** One running {@code up}: what {@code status} reads. */
    record Up(long pid, Instant started, String api, Path settings, Path file) {
    }

    private RunRegistry() {
    }

    /** Records this process's {@code up}; closing the handle removes the record. */
    static AutoCloseable record(LiveProduct product) throws IOException {
        ProcessHandle self = ProcessHandle.current();
        Path file = EngramHome.runs().resolve("up-" + self.pid() + ".properties");
        Properties p = new Properties();
        p.setProperty("pid", String.valueOf(self.pid()));
        p.setProperty("started", startOf(self).map(Instant::toString).orElse(""));
        p.setProperty("api", product.apiUrl());
        p.setProperty("settings", product.settingsFile().toAbsolutePath().toString());
        Files.createDirectories(file.getParent());
        Path written = file.resolveSibling(file.getFileName() + ".new");
        try (Writer out = Files.newBufferedWriter(written)) {
            p.store(out, "a running ./engram up, for ./engram status (removed when it stops)");
        }
        Files.move(written, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return () -> Files.deleteIfExists(file);
    }

    /**
     * The {@code up}s running now, oldest first; stale records are removed, each with a line in {@code removed}.
     */
    static List<Up> running(List<String> removed) {
        List<Up> running = new ArrayList<>();
        for (Path file : records()) {
            Optional<Up> up = read(file);
            if (up.isPresent() && alive(up.get())) {
                running.add(up.get());
            } else if (up.isPresent()) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                removed.add("removed " + file + ": the up it records (process " + up.get().pid() + ") no longer runs");
            }
        }
        running.sort(java.util.Comparator.comparing(Up::started));
        return running;
    }

    private static List<Path> records() {
        try (Stream<Path> files = Files.list(EngramHome.runs())) {
            return files.filter(f -> f.getFileName().toString().matches("up-\\d+\\.properties")).sorted().toList();
        } catch (java.nio.file.NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The record, or empty when it vanished meanwhile (its up stopped). */
    private static Optional<Up> read(Path file) {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            p.load(in);
        } catch (java.nio.file.NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String started = p.getProperty("started", "");
        return Optional.of(new Up(Long.parseLong(p.getProperty("pid", "-1")),
                started.isEmpty() ? Instant.EPOCH : Instant.parse(started), p.getProperty("api", ""),
                Path.of(p.getProperty("settings", "")), file));
    }

    /** Whether the recorded process still runs: its id is taken and by a process started when it was. */
    private static boolean alive(Up up) {
        return ProcessHandle.of(up.pid()).filter(ProcessHandle::isAlive)
                .map(h -> up.started().equals(Instant.EPOCH) || startOf(h).map(up.started()::equals).orElse(true))
                .orElse(false);
    }

    private static Optional<Instant> startOf(ProcessHandle process) {
        return process.info().startInstant();
    }
}
