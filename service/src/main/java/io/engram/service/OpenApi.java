package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The API's OpenAPI 3.1 document, {@code GET /openapi.json} (a test checks it lists exactly the served routes). */
public final class OpenApi {

    private static final JsonNode DOCUMENT = load();

    private OpenApi() {
    }

    public static JsonNode document() {
        return DOCUMENT;
    }

    private static JsonNode load() {
        try (InputStream in = OpenApi.class.getResourceAsStream("/engram/service/openapi.json")) {
            return ResponsesJson.JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
