package io.engram.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A listing's position as an opaque token: the last hit's sort values ({@code ts}, id), base64url JSON. An
 * oldest-first listing's token also says so, so that a cursor is never read in the other order.
 */
final class PageCursor {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String OLDEST_FIRST = "oldest";

    private PageCursor() {
    }

    static String encode(JsonNode sortValues, MemoryReader.Order order) {
        ArrayNode token = JSON.createArrayNode().add(sortValues.get(0)).add(sortValues.get(1));
        if (order == MemoryReader.Order.OLDEST_FIRST) {
            token.add(OLDEST_FIRST);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(token.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The sort values ({@code ts}, id) of a cursor of a listing in {@code order}; a token this class did not make for
     * that order is an {@link IllegalArgumentException}.
     */
    static JsonNode decode(String cursor, MemoryReader.Order order) {
        int size = order == MemoryReader.Order.OLDEST_FIRST ? 3 : 2;
        try {
            JsonNode values = JSON.readTree(Base64.getUrlDecoder().decode(cursor));
            if (values == null || !values.isArray() || values.size() != size || !values.get(0).isNumber()
                    || !values.get(1).isTextual() || (size == 3 && !OLDEST_FIRST.equals(values.get(2).asText()))) {
                throw new IllegalArgumentException("invalid cursor");
            }
            return JSON.createArrayNode().add(values.get(0)).add(values.get(1));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid cursor", e);
        }
    }
}
