package io.engram.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a data directory for as long as a process uses it. The operating system releases it when
 * the process dies, however it dies, so holding it proves that no live process owns the directory.
 */
final class DataDirLock implements AutoCloseable {

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Locks {@code dir} for {@code what}, or fails saying that another live process holds it. */
    static DataDirLock acquire(Path dir, String what) {
        Path file = dir.resolve("engram.lock");
        try {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                throw new IllegalStateException("another running process keeps its " + what + " data in " + dir
                        + ": stop it first (two cannot share one data directory)");
            }
            return new DataDirLock(channel, lock);
        } catch (java.nio.channels.OverlappingFileLockException e) {
            throw new IllegalStateException("this process already keeps its " + what + " data in " + dir, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock " + file, e);
        }
    }

    @Override
    public void close() {
        try (channel) {
            lock.release();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot release the lock on a data directory", e);
        }
    }
}
