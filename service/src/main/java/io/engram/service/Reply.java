package io.engram.service;

import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A successful answer of the HTTP API: its status, its body (JSON, text for {@code /metrics}, a console file, a
 * {@link Streamed} body, or none) and headers of its own.
 */
record Reply(int status, Object body, Map<String, String> headers) {

    /**
     * A body too large to hold (an export): sent in chunks as it is written, so the service holds one part of it
     * at a time. Its status is sent before it is written: what fails after that breaks the stream.
     */
    interface Streamed {
        String contentType();

        void writeTo(OutputStream out) throws IOException;
    }

    static Reply of(int status, Object body) {
        return new Reply(status, body, Map.of());
    }

    static Reply ok(Object body) {
        return of(200, body);
    }

    Reply withHeader(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new Reply(status, body, Map.copyOf(more));
    }
}
