package io.engram.jobs.serde;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Keyed state an operator wrote as JSON text before its state was typed: read once per key when a savepoint of
 * that time is restored (docs/operations.md, "Upgrades").
 */
public final class LegacyJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private LegacyJson() {
    }

    /** The JSON of a state value; text that is not JSON is corrupt {@code what}. */
    public static JsonNode read(String json, String what) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt " + what + " in state", e);
        }
    }
}
