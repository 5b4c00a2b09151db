package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/api.md is the OpenAPI document the service serves, rendered: this test renders it again and fails when the
 * file differs. Regenerate with {@code mvn -pl service test -Dtest=ApiReferenceTest -Dengram.write-api-reference=true}.
 */
class ApiReferenceTest {

    private static final Path DOC = Path.of(System.getProperty("engram.root", ".."), "docs", "api.md");

    @Test
    void theApiReferenceIsTheOpenApiDocumentRendered() throws Exception {
        String rendered = render(OpenApi.document());
        if (Boolean.getBoolean("engram.write-api-reference")) {
            Files.writeString(DOC, rendered, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(DOC, StandardCharsets.UTF_8)).as("docs/api.md: regenerate it (see this test's"
                + " comment)").isEqualTo(rendered);
    }

    @Test
    void everyServedRouteIsDocumentedAndNothingElse() {
        List<String> documented = new ArrayList<>();
        OpenApi.document().get("paths").properties().forEach(path -> path.getValue().properties()
                .forEach(method -> documented.add(method.getKey().toUpperCase() + " " + path.getKey())));
        List<String> served = Routes.ALL.stream().map(Route::toString).toList();
        assertThat(documented).containsExactlyInAnyOrderElementsOf(served);
    }

    static String render(JsonNode spec) {
        StringBuilder md = new StringBuilder();
        md.append("# HTTP API reference\n\n")
                .append("<!-- Generated from the service's GET /openapi.json by ApiReferenceTest; do not edit. -->\n\n")
                .append(spec.at("/info/description").asText()).append("\n\n")
                .append("Authentication: `Authorization: Bearer KEY` or `X-Api-Key: KEY` on every `/v1` endpoint; the")
                .append(" operations endpoints need none.\n");
        Map<String, List<String>> byTag = new LinkedHashMap<>();
        spec.get("paths").properties().forEach(path -> path.getValue().properties().forEach(op -> {
            String tag = op.getValue().path("tags").path(0).asText("other");
            byTag.computeIfAbsent(tag, t -> new ArrayList<>()).add(operation(path.getKey(), op.getKey(), op.getValue(), spec));
        }));
        byTag.forEach((tag, ops) -> {
            md.append("\n## ").append(Character.toUpperCase(tag.charAt(0))).append(tag.substring(1)).append('\n');
            ops.forEach(md::append);
        });
        return md.toString();
    }

    private static String operation(String path, String method, JsonNode op, JsonNode spec) {
        StringBuilder md = new StringBuilder();
        md.append("\n### `").append(method.toUpperCase()).append(' ').append(path).append("`\n\n")
                .append(op.path("summary").asText()).append(".\n");
        if (op.has("parameters")) {
            md.append("\n| parameter | in | meaning |\n|---|---|---|\n");
            op.get("parameters").forEach(p -> md.append("| `").append(p.get("name").asText()).append("` | ")
                    .append(p.get("in").asText()).append(" | ").append(p.path("description").asText()).append(" |\n"));
        }
        JsonNode body = op.at("/requestBody/content/application~1json/schema");
        if (!body.isMissingNode()) {
            md.append("\nBody: ").append(schema(body, spec)).append('\n');
        }
        md.append("\n| answer | meaning |\n|---|---|\n");
        Map<String, List<String>> codesByMeaning = new LinkedHashMap<>(); // the shared error shape once
        op.get("responses").properties().forEach(r -> {
            JsonNode answer = r.getValue().has("$ref") ? resolve(r.getValue().get("$ref").asText(), spec) : r.getValue();
            JsonNode shape = answer.at("/content/application~1json/schema");
            String meaning = answer.path("description").asText() + (shape.isMissingNode() ? "" : ": " + schema(shape, spec));
            codesByMeaning.computeIfAbsent(meaning, m -> new ArrayList<>()).add(r.getKey());
        });
        codesByMeaning.forEach((meaning, codes) -> md.append("| ").append(String.join(", ", codes)).append(" | ")
                .append(meaning).append(" |\n"));
        return md.toString();
    }

    /** A schema in one line: its fields with their types, {@code ?} on the optional ones. */
    private static String schema(JsonNode schema, JsonNode spec) {
        if (schema.has("$ref")) {
            String ref = schema.get("$ref").asText();
            JsonNode target = resolve(ref, spec);
            String name = ref.substring(ref.lastIndexOf('/') + 1);
            return name + " " + schema(target, spec);
        }
        if (schema.has("oneOf")) {
            List<String> options = new ArrayList<>();
            schema.get("oneOf").forEach(o -> options.add(schema(o, spec)));
            return String.join(" or ", options);
        }
        if ("array".equals(schema.path("type").asText())) {
            return "[" + schema(schema.path("items"), spec) + "]";
        }
        if (schema.has("properties")) {
            List<String> required = new ArrayList<>();
            schema.path("required").forEach(r -> required.add(r.asText()));
            List<String> fields = new ArrayList<>();
            schema.get("properties").properties().forEach(f -> fields.add("`" + f.getKey()
                    + (required.contains(f.getKey()) || required.isEmpty() && !schema.has("required") ? "" : "?")
                    + "`: " + schema(f.getValue(), spec)));
            String note = schema.has("description") ? " (" + schema.get("description").asText() + ")" : "";
            return "{" + String.join(", ", fields) + "}" + note;
        }
        if (schema.has("enum")) {
            List<String> values = new ArrayList<>();
            schema.get("enum").forEach(v -> values.add(v.asText()));
            return String.join(" \\| ", values);
        }
        JsonNode type = schema.path("type");
        return type.isArray() ? type.get(0).asText() + " or " + type.get(1).asText() : type.asText("any");
    }

    private static JsonNode resolve(String ref, JsonNode spec) {
        return spec.at(ref.substring(1));
    }
}
