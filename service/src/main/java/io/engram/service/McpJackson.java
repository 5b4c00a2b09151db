package io.engram.service;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.McpJsonMapperSupplier;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.JsonSchemaValidatorSupplier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * MCP's JSON through the project's Jackson 2 and the JSON Schema validator the write path already uses, so the
 * SDK brings no second JSON stack: the SDK's mapper, and its validator of tool arguments against each tool's
 * input schema. {@link Mapper} and {@link Validator} make it the SDK's default (META-INF/services), for MCP
 * clients in this JVM too.
 */
public final class McpJackson implements McpJsonMapper, JsonSchemaValidator {

    /** The one instance: its schemas compiled once. */
    static final McpJackson INSTANCE = new McpJackson();

    /** The SDK's service-loader entry for its JSON mapper. */
    public static final class Mapper implements McpJsonMapperSupplier {
        @Override
        public McpJsonMapper get() {
            return INSTANCE;
        }
    }

    /** The SDK's service-loader entry for its JSON Schema validator. */
    public static final class Validator implements JsonSchemaValidatorSupplier {
        @Override
        public JsonSchemaValidator get() {
            return INSTANCE;
        }
    }

    private static final int MAX_REPORTED_ERRORS = 3;
    private final ObjectMapper json = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private final Map<Map<String, Object>, Schema> schemas = new ConcurrentHashMap<>();

    private McpJackson() {
    }

    @Override
    public <T> T readValue(String content, Class<T> type) throws IOException {
        return json.readValue(content, type);
    }

    @Override
    public <T> T readValue(byte[] content, Class<T> type) throws IOException {
        return json.readValue(content, type);
    }

    @Override
    public <T> T readValue(String content, TypeRef<T> type) throws IOException {
        return json.readValue(content, json.getTypeFactory().constructType(type.getType()));
    }

    @Override
    public <T> T readValue(byte[] content, TypeRef<T> type) throws IOException {
        return json.readValue(content, json.getTypeFactory().constructType(type.getType()));
    }

    @Override
    public <T> T convertValue(Object value, Class<T> type) {
        return json.convertValue(value, type);
    }

    @Override
    public <T> T convertValue(Object value, TypeRef<T> type) {
        return json.convertValue(value, json.getTypeFactory().constructType(type.getType()));
    }

    @Override
    public String writeValueAsString(Object value) throws IOException {
        return json.writeValueAsString(value);
    }

    @Override
    public byte[] writeValueAsBytes(Object value) throws IOException {
        return json.writeValueAsBytes(value);
    }

    @Override
    public ValidationResponse validate(Map<String, Object> schema, Object content) {
        Schema compiled = schemas.computeIfAbsent(schema, s -> registry.getSchema(json.valueToTree(s)));
        List<Error> errors = compiled.validate(json.valueToTree(content));
        if (errors.isEmpty()) {
            try {
                return ValidationResponse.asValid(json.writeValueAsString(content));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        // each error names its argument: "/budget_tokens: integer found, but ... expected"
        return ValidationResponse.asInvalid(errors.stream().limit(MAX_REPORTED_ERRORS)
                .map(e -> e.getInstanceLocation() + ": " + e.getMessage()).collect(Collectors.joining("; ")));
    }
}
