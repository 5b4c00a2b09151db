package io.engram.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where one embedded service listens and keeps its data.
 *
 * @param port    the port to bind on 127.0.0.1, or 0 for a free one
 * @param dataDir a directory that survives restarts, or empty for a temporary one removed at close
 */
public record ServiceOptions(int port, Optional<Path> dataDir) {

    public ServiceOptions {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    /** A free port and a temporary directory. */
    public static ServiceOptions ephemeral() {
        return new ServiceOptions(0, Optional.empty());
    }

    int resolvePort() {
        return port != 0 ? port : freePort();
    }

    /** The data directory, created when needed; temporary ones are marked for deletion by the caller. */
    Path resolveDataDir(String prefix) {
        try {
            if (dataDir.isPresent()) {
                return Files.createDirectories(dataDir.get());
            }
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory for " + prefix, e);
        }
    }

    boolean temporary() {
        return dataDir.isEmpty();
    }

    /** A port free on 127.0.0.1 now. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}
