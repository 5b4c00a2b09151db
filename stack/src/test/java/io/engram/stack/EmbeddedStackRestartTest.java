package io.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.stack.EmbeddedStack.Service;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With a data directory, every service keeps its data across a stop and a start. */
class EmbeddedStackRestartTest {

    @TempDir
    Path dataRoot;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void dataSurvivesARestartWhenADirectoryIsGiven() throws Exception {
        EmbeddedStack.Config config = EmbeddedStack.Config.all(Optional.of(dataRoot));
        List<Service> readyOrder = new ArrayList<>();
        try (EmbeddedStack stack = EmbeddedStack.start(config, (service, address) -> readyOrder.add(service))) {
            assertThat(readyOrder).containsExactlyInAnyOrder(Service.values());
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", stack.kafka().orElseThrow().bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic("restart.topic", 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            try (Connection c = stack.postgres().orElseThrow().connect(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE kept (v TEXT)");
                s.execute("INSERT INTO kept VALUES ('still here')");
            }
            String os = stack.openSearch().orElseThrow().httpUrl();
            assertThat(send("PUT", os + "/kept-index/_doc/1?refresh=true", "{\"v\":\"still here\"}")).isEqualTo(201);
        }

        try (EmbeddedStack stack = EmbeddedStack.start(config, (service, address) -> { })) {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", stack.kafka().orElseThrow().bootstrapServers()))) {
                assertThat(admin.describeTopics(List.of("restart.topic")).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get("restart.topic").partitions()).hasSize(3);
            }
            try (Connection c = stack.postgres().orElseThrow().connect(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT v FROM kept")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("still here");
            }
            HttpResponse<String> doc = http.send(HttpRequest.newBuilder(
                    URI.create(stack.openSearch().orElseThrow().httpUrl() + "/kept-index/_doc/1")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(doc.statusCode()).isEqualTo(200);
            assertThat(doc.body()).contains("\"v\":\"still here\"");
        }
    }

    private int send(String method, String url, String body) throws Exception {
        // The stack disables automatic index creation, so the index is created explicitly first.
        String index = url.substring(0, url.indexOf("/_doc"));
        http.send(HttpRequest.newBuilder(URI.create(index)).PUT(HttpRequest.BodyPublishers.ofString(
                "{\"settings\":{\"number_of_replicas\":0}}")).header("Content-Type", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
        return http.send(HttpRequest.newBuilder(URI.create(url)).method(method, HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }
}
