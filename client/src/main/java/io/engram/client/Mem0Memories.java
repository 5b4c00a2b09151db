package io.engram.client;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * Mem0's memories as {@code memory.v1} records (docs/clients.md, "Importing from Mem0"). The input is any
 * sequence of JSON values: Mem0 memory objects (JSON lines), its paginated listing {@code {"count", "next",
 * "previous", "results": [...]}} (what {@code get_all} answers) or an array of memory objects (its older list
 * answer). A listing or array is streamed element by element, never read whole. A syntax error ends the input:
 * JSON cannot be resumed after one, so it is reported at its line and the rest is not read.
 */
final class Mem0Memories implements Importer.Entries {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final JsonParser parser;
    /** Inside an array of memories (a listing's {@code results} or a top-level array). */
    private boolean inArray;
    /** Whether that array is a listing's {@code results}, whose object's other fields follow it. */
    private boolean inListing;
    private boolean ended;

    Mem0Memories(InputStream in) throws IOException {
        this.parser = JSON.getFactory().createParser(in);
    }

    @Override
    public Importer.Entry next() throws IOException {
        while (!ended) {
            try {
                Importer.Entry entry = step();
                if (entry != null) {
                    return entry;
                }
            } catch (JsonProcessingException e) {
                ended = true;
                return Importer.Entry.failed(line(), "invalid_json: " + e.getOriginalMessage()
                        + "; the rest of the input was not read");
            }
        }
        return null;
    }

    /** Reads one value: a memory, or the start or end of a listing; null when it was not a memory. */
    private Importer.Entry step() throws IOException {
        JsonToken token = parser.nextToken();
        if (token == null) {
            ended = true;
            return null;
        }
        long line = line();
        if (inArray && token == JsonToken.END_ARRAY) {
            inArray = false;
            if (inListing) {
                inListing = false;
                skipToEndOfObject();
            }
            return null;
        }
        if (!inArray && token == JsonToken.START_ARRAY) {
            inArray = true;
            return null;
        }
        if (!inArray && token == JsonToken.START_OBJECT) {
            ObjectNode read = readObjectUntilResults();
            return read == null ? null : memory(line, read);
        }
        return memory(line, JSON.readTree(parser));
    }

    /**
     * The fields of the object just started, or null when it turns out a listing: at its {@code results} array
     * the array is entered (the fields before it, such as {@code count}, are dropped).
     */
    private ObjectNode readObjectUntilResults() throws IOException {
        ObjectNode read = JSON.createObjectNode();
        for (JsonToken t = parser.nextToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            if (name.equals("results") && value == JsonToken.START_ARRAY) {
                inArray = true;
                inListing = true;
                return null;
            }
            read.set(name, JSON.readTree(parser));
        }
        return read;
    }

    /** Passes over a listing's fields after {@code results} ({@code next}, {@code previous}, …). */
    private void skipToEndOfObject() throws IOException {
        for (JsonToken t = parser.nextToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
            parser.nextToken();
            parser.skipChildren();
        }
    }

    private long line() {
        return parser.currentTokenLocation().getLineNr();
    }

    /** A Mem0 memory object as a memory.v1 record without its tenant (the import sets it), or why it is none. */
    static Importer.Entry memory(long line, JsonNode mem0) {
        if (!(mem0 instanceof ObjectNode m)) {
            return Importer.Entry.failed(line, "not_an_object: a Mem0 memory is a JSON object");
        }
        String missing = !m.path("id").isTextual() ? "id" : !m.path("memory").isTextual() ? "memory (its text)"
                : !m.path("updated_at").isTextual() && !m.path("created_at").isTextual() ? "created_at or updated_at" : null;
        if (missing != null) {
            return Importer.Entry.failed(line, "schema_violation: a Mem0 memory without " + missing);
        }
        ObjectNode record = JSON.createObjectNode().put("schema", PayloadKind.MEMORY.schema())
                .put("memory_id", m.get("id").asText()).put("type", "memory").put("op", "upsert")
                .put("text", m.get("memory").asText());
        for (String scope : new String[] {"user_id", "agent_id"}) {
            if (m.path(scope).isTextual()) {
                record.put(scope, m.get(scope).asText());
            }
        }
        String expiresAt = m.path("expiration_date").isTextual() ? expiry(m.get("expiration_date").asText()) : null;
        if (expiresAt != null) {
            record.put("expires_at", expiresAt);
        }
        record.put("ts", (m.path("updated_at").isTextual() ? m.get("updated_at") : m.get("created_at")).asText());
        return new Importer.Entry(line, record, null);
    }

    /**
     * Mem0's {@code expiration_date} as an instant, or null: a {@code YYYY-MM-DD} date, evaluated in UTC and inclusive
     * of the day, so the memory expires at the start of the next day. Mem0 reads any other value as no expiry (its
     * malformed dates "fail open"), and so does the import.
     */
    private static String expiry(String date) {
        try {
            return LocalDate.parse(date).plusDays(1).atStartOfDay().toInstant(ZoneOffset.UTC).toString();
        } catch (DateTimeParseException notADate) {
            return null;
        }
    }
}
