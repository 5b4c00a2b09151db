package io.engram.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import java.io.PrintWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./engram bench scale} at 10,000 records of 50 tenants on the real servers, asserting what it finds, never
 * how fast: every record searchable in its tenant and nowhere else, per-tenant counts equal to what was sent, the
 * sample's contents after two kill -9 equal to a run that never died, a forget that removes exactly the user's.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class ScaleBenchSmokeTest {

    @TempDir
    Path dir;

    @Test
    void fiftyTenantsLoadThroughThePipelineSurviveKillsAndStayApart(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                                   EmbeddedPostgreSql postgres) throws Exception {
        ScaleRun.Options options = new ScaleRun.Options(50, 10_000, 1_500, dir,
                Path.of(System.getProperty("engram.root"), "data", "agents-md"), "512m", "2s", RunSettings.STANDIN, 0, 10, 200, null);
        JsonNode report = new ScaleRun(options, new RunSettings.Servers(kafka.bootstrapServers(), openSearch.httpUrl(),
                postgres.jdbcUrl()), new PrintWriter(System.out, true)).run();

        assertThat(ScaleVerdict.failures(report)).isEmpty();
        assertThat(report.at("/correctness/tenants_with_count_mismatch").asLong()).isZero();
        assertThat(report.at("/correctness/document_chunks").asLong()).isGreaterThanOrEqualTo(50);
        assertThat(report.at("/correctness/sample_tenants").asInt()).isEqualTo(4);
        assertThat(report.at("/correctness/sample_documents").asLong()).as("the sample's documents compared").isGreaterThan(400);
        assertThat(report.at("/correctness/sample_differences").asLong()).isZero();
        assertThat(report.at("/cross_tenant/reads").asInt()).isEqualTo(200);
        assertThat(report.at("/cross_tenant/records_returned").asLong()).as("the reads found the key's own records").isPositive();
        assertThat(report.at("/cross_tenant/foreign_records").asLong()).isZero();
        assertThat(report.at("/cross_tenant/foreign_ids_answered").asLong()).isZero();
        assertThat(report.at("/forget/user_records_sent").asLong()).isPositive();
        assertThat(report.at("/forget/user_records_left").asLong()).isZero();
        assertThat(report.at("/forget/tenant_records_left").asLong())
                .isEqualTo(report.at("/forget/tenant_records_expected").asLong());
        assertThat(report.at("/cycle_close/close_reason").asText()).isEqualTo("cycle_id");
        assertThat(report.at("/checkpoint/state_bytes").asLong()).as("the state is RocksDB's, checkpointed").isPositive();
        assertThat(report.at("/operator/tenants_listed").asInt()).as("every tenant with cycle rows")
                .isEqualTo(report.at("/operator/tenants_with_cycle_rows").asInt()).isGreaterThan(40);
        assertThat(report.at("/correctness/summaries").asLong()).as("sessions compacted").isPositive();
        assertThat(report.at("/index/derived_source").asBoolean()).as("the job's index keeps vectors out of _source").isTrue();
        assertThat(report.get("reads")).hasSize(6);
        assertThat(report.get("layout_reads")).as("3 tenants, 2 rounds, 2 layouts").hasSize(12);
        assertThat(report.at("/layouts/source_vectors/documents").asLong()).as("both copies hold every document")
                .isEqualTo(report.at("/layouts/derived_source/documents").asLong())
                .isGreaterThanOrEqualTo(report.at("/index/documents").asLong()); // summaries may still come after the count
    }
}
