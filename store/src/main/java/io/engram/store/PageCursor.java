package io.engram.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** A listing's position as an opaque token: the last hit's sort values, base64url JSON. */
final class PageCursor {

    private static final ObjectMapper JSON = new ObjectMapper();

    private PageCursor() {
    }

    static String encode(JsonNode sortValues) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(sortValues.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The sort values of a cursor; a token this class did not make is an {@link IllegalArgumentException}. */
    static JsonNode decode(String cursor) {
        try {
            JsonNode values = JSON.readTree(Base64.getUrlDecoder().decode(cursor));
            if (values == null || !values.isArray() || values.size() != 2 || !values.get(0).isNumber()
                    || !values.get(1).isTextual()) {
                throw new IllegalArgumentException("invalid cursor");
            }
            return values;
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid cursor", e);
        }
    }
}
