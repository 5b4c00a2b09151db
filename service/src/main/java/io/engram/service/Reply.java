package io.engram.service;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A successful answer of the HTTP API: its status, its body (JSON, text for {@code /metrics}, a console file, or
 * none) and headers of its own.
 */
record Reply(int status, Object body, Map<String, String> headers) {

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
