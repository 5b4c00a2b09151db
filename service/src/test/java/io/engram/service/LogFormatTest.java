package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

class LogFormatTest {

    private static final Logger LOG = LoggerFactory.getLogger(LogFormatTest.class);
    private final PrintStream stdout = System.out;

    @AfterEach
    void restore() {
        System.setOut(stdout);
        ((LoggerContext) LogManager.getContext(false)).reconfigure();
    }

    @Test
    void jsonWritesOneObjectPerLineWithTheRecordsCoordinates() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        Configurator.setRootLevel(Level.INFO);
        LogFormat.apply("JSON");
        try (var tenant = MDC.putCloseable("tenant_id", "acme"); var offset = MDC.putCloseable("offset", "42")) {
            LOG.info("rejected \"{}\"\nsecond line", "schema_violation");
        }
        LOG.warn("a write failed", new IllegalStateException("OpenSearch said no"));
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(2);
        ObjectMapper json = new ObjectMapper();
        JsonNode first = json.readTree(lines.get(0));
        assertThat(first.path("level").asText()).isEqualTo("INFO");
        assertThat(first.path("logger").asText()).isEqualTo(LogFormatTest.class.getName());
        assertThat(first.path("message").asText()).isEqualTo("rejected \"schema_violation\"\nsecond line");
        assertThat(first.path("tenant_id").asText()).isEqualTo("acme");
        assertThat(first.path("offset").asText()).isEqualTo("42");
        assertThat(first.path("timestamp").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
        assertThat(first.has("error")).isFalse();
        JsonNode second = json.readTree(lines.get(1));
        assertThat(second.path("level").asText()).isEqualTo("WARN");
        assertThat(second.has("tenant_id")).isFalse();
        assertThat(second.path("error").asText()).startsWith("java.lang.IllegalStateException: OpenSearch said no")
                .contains("at io.engram.service.LogFormatTest");
    }

    @Test
    void textKeepsTheLayoutAndAnythingElseIsRefused() {
        LogFormat.apply(null);
        LogFormat.apply("text");
        assertThatThrownBy(() -> LogFormat.apply("xml")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("logging.format: xml (use text or json)");
    }
}
