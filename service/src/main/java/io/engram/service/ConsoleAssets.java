package io.engram.service;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;

/**
 * The web console's files (docs/console.md), served from the service jar: a page that holds no data until the
 * browser calls the API with the key typed into it. Only the files listed here are served.
 */
final class ConsoleAssets {

    /** A file and its media type. */
    record Asset(byte[] bytes, String contentType) {
    }

    private static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "console.css", "text/css; charset=utf-8",
            "console.js", "text/javascript; charset=utf-8");

    private ConsoleAssets() {
    }

    static Optional<Asset> get(String name) {
        String file = name.isEmpty() ? "index.html" : name;
        String type = FILES.get(file);
        if (type == null) {
            return Optional.empty();
        }
        try (InputStream in = ConsoleAssets.class.getResourceAsStream("/engram/console/" + file)) {
            if (in == null) {
                throw new IllegalStateException("the service jar lacks the console's " + file);
            }
            return Optional.of(new Asset(in.readAllBytes(), type));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
