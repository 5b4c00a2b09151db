package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.model.embed.EmbeddingModel;
import io.engram.service.ApiKeys;
import io.engram.service.MemoryService;
import io.engram.service.ResponsesJson;
import io.engram.service.ServiceConfig;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code ./engram webhooks} against a memory service on real servers, with the admin key naming the tenant. */
@ExtendWith(EmbeddedServicesExtension.class)
class WebhooksCommandTest {

    private static final String ADMIN_KEY = "webhooks-cli-admin-key-0123456789";

    @Test
    void aWebhookIsRegisteredShownResumedAndDeletedFromTheCommandLine(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                                      EmbeddedPostgreSql postgres) throws Exception {
        String index = "engram-memories-webhooks-cli";
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), index, RetryPolicy.DEFAULT)) {
            store.ensureIndex(EmbeddingModel.HASHED_STANDIN.id(), EmbeddingModel.DIMENSION);
        }
        Properties settings = new Properties();
        settings.putAll(Map.of("kafka.bootstrap", kafka.bootstrapServers(), "opensearch.url", openSearch.httpUrl(),
                "opensearch.index", index, "postgres.url", postgres.jdbcUrl(), "postgres.user", EmbeddedPostgreSql.USER,
                "webhooks.enabled", "false"));
        try (MemoryService service = MemoryService.start(ServiceConfig.from(settings, Map.of()).withListen("127.0.0.1", 0),
                ApiKeys.of(ApiKeys.keyFileLine(ADMIN_KEY, ApiKeys.ADMIN_GRANT)))) {
            String[] to = {"--url", "http://127.0.0.1:" + service.port(), "--key", ADMIN_KEY, "--tenant", "cli-hooks"};

            CliRun made = run(to, "create", "--endpoint", "https://crm.example.com/engram", "--kinds", "upserted,forgotten",
                    "--description", "crm");
            assertThat(made.exit()).as(made.out() + made.err()).isZero();
            JsonNode webhook = ResponsesJson.JSON.readTree(made.out());
            String id = webhook.get("id").asText();
            assertThat(webhook.get("secret").asText()).matches("[0-9a-f]{64}");
            assertThat(webhook.get("kinds").toString()).isEqualTo("[\"forgotten\",\"upserted\"]");

            JsonNode listed = ResponsesJson.JSON.readTree(run(to, "list").out());
            assertThat(listed.at("/webhooks/0/id").asText()).isEqualTo(id);
            assertThat(listed.toString()).doesNotContain("secret");
            assertThat(ResponsesJson.JSON.readTree(run(to, "show", id).out()).get("state").asText()).isEqualTo("active");
            assertThat(ResponsesJson.JSON.readTree(run(to, "deliveries", id, "--limit", "5").out()).get("deliveries"))
                    .isEmpty();
            assertThat(ResponsesJson.JSON.readTree(run(to, "resume", id).out()).get("state").asText()).isEqualTo("active");
            assertThat(run(to, "delete", id).out().strip()).isEqualTo("HTTP 204");

            CliRun gone = run(to, "show", id);
            assertThat(gone.exit()).isEqualTo(1);
            assertThat(ResponsesJson.JSON.readTree(gone.out()).at("/error/code").asText()).isEqualTo("not_found");
            CliRun bad = run(to, "create", "--endpoint", "ftp://example.com/x");
            assertThat(bad.exit()).isEqualTo(1);
            assertThat(ResponsesJson.JSON.readTree(bad.out()).at("/error/message").asText())
                    .contains("absolute http or https URL");
        }
    }

    /** {@code ./engram webhooks}, the service's address, key and tenant, then the subcommand. */
    private static CliRun run(String[] to, String... command) {
        String[] args = new String[1 + to.length + command.length];
        args[0] = "webhooks";
        System.arraycopy(to, 0, args, 1, to.length);
        System.arraycopy(command, 0, args, 1 + to.length, command.length);
        return CliRun.of(args);
    }
}
