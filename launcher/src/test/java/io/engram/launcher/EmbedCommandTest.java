package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class EmbedCommandTest {

    @Test
    void printsOneJsonLinePerInputLine() throws Exception {
        InputStream stdin = System.in;
        StringWriter out = new StringWriter();
        try {
            System.setIn(new ByteArrayInputStream("hello world\n\nhello world\n".getBytes(StandardCharsets.UTF_8)));
            CommandLine cli = EngramCli.commandLine();
            cli.setOut(new PrintWriter(out));
            assertThat(cli.execute("embed", "--dim", "64")).isZero();
        } finally {
            System.setIn(stdin);
        }
        String[] lines = out.toString().strip().split("\n");
        assertThat(lines).hasSize(3);
        ObjectMapper json = new ObjectMapper();
        JsonNode first = json.readTree(lines[0]);
        assertThat(first.path("sha256").asText())
                .isEqualTo("b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9");
        assertThat(first.path("dim").asInt()).isEqualTo(64);
        assertThat(first.path("tokens").asInt()).isEqualTo(2);
        assertThat(first.path("truncated").asBoolean()).isFalse();
        assertThat(first.path("embedding")).hasSize(64);
        double norm = 0;
        for (JsonNode v : first.path("embedding")) {
            norm += v.asDouble() * v.asDouble();
        }
        assertThat(norm).isCloseTo(1.0, org.assertj.core.api.Assertions.within(1e-4));
        JsonNode blank = json.readTree(lines[1]);
        assertThat(blank.path("tokens").asInt()).isZero();
        assertThat(blank.path("embedding")).hasSize(64);
        assertThat(json.readTree(lines[2]).path("embedding")).isEqualTo(first.path("embedding"));
    }
}
