package io.engram.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.engram.jobs.windows.WindowVectors;
import io.engram.model.facts.FactPolicy;
import io.engram.model.facts.Retention;
import io.engram.store.VectorEncoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class PipelineConfigTest {

    @Test
    void readsTheDocumentedKeysAndRefusesAMisspeltOne() {
        Properties p = new Properties();
        p.setProperty("kafka.starting-offsets", "timestamp:1767225600000");
        p.setProperty("collapse.quiet-gap", "15m");
        p.setProperty("parallelism", "4");
        p.setProperty("flink.state.backend.type", "rocksdb"); // passed to Flink, not ours to check
        PipelineConfig config = PipelineConfig.fromProperties(p);
        assertThat(config.startingOffsets()).isEqualTo("timestamp:1767225600000");
        assertThat(config.quietGap()).isEqualTo(Duration.ofMinutes(15));
        assertThat(config.parallelism()).isEqualTo(4);

        p.setProperty("collapse.quiet_gap", "5m");
        assertThatThrownBy(() -> PipelineConfig.fromProperties(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[collapse.quiet_gap]");
        p.remove("collapse.quiet_gap");
        p.setProperty("kafka.starting-offsets", "yesterday");
        assertThatThrownBy(() -> PipelineConfig.fromProperties(p)).hasMessageContaining("kafka.starting-offsets: yesterday");
    }

    @Test
    void supersessionIsOnByDefaultAndRetentionIsPerTenantOverEveryTenants() {
        assertThat(PipelineConfig.defaults().facts().supersession()).isTrue();
        assertThat(PipelineConfig.defaults().facts().retentionOf("acme")).isEqualTo(Retention.NONE);
        Properties p = new Properties();
        p.setProperty("memories.supersession", "false");
        p.setProperty("retention.turns", "30d");
        p.setProperty("retention.memories", "365d");
        p.setProperty("retention.acme.turns", "7d");
        FactPolicy facts = PipelineConfig.fromProperties(p).facts();
        assertThat(facts.supersession()).isFalse();
        assertThat(facts.retentionOf("acme")).isEqualTo(new Retention(Duration.ofDays(7), null, Duration.ofDays(365)));
        assertThat(facts.retentionOf("globex")).isEqualTo(new Retention(Duration.ofDays(30), null, Duration.ofDays(365)));
        p.setProperty("retention.turn", "1d");
        assertThatThrownBy(() -> PipelineConfig.fromProperties(p)).hasMessageContaining("[retention.turn]");
    }

    @Test
    void windowVectorsComeFromTheTurnsUnlessSetAndAnUnknownSourceIsRefused() {
        assertThat(PipelineConfig.defaults().windowVectors()).isEqualTo(WindowVectors.TURNS);
        Properties p = new Properties();
        p.setProperty("windows.vectors", "model");
        assertThat(PipelineConfig.fromProperties(p).windowVectors()).isEqualTo(WindowVectors.MODEL);
        p.setProperty("windows.vectors", "mean");
        assertThatThrownBy(() -> PipelineConfig.fromProperties(p))
                .hasMessage("windows.vectors: mean (use turns, model)");
    }

    @Test
    void entitiesAreIndexedUnlessTurnedOff() {
        assertThat(PipelineConfig.defaults().indexEntities()).isTrue();
        Properties p = new Properties();
        p.setProperty("opensearch.entities", "false");
        assertThat(PipelineConfig.fromProperties(p).indexEntities()).isFalse();
    }

    @Test
    void theVectorEncodingIsFloatUnlessSetAndAnUnknownOneIsRefused() {
        assertThat(PipelineConfig.defaults().vectorEncoding()).isEqualTo(VectorEncoding.FLOAT);
        Properties p = new Properties();
        p.setProperty("opensearch.vector-encoding", "sq");
        assertThat(PipelineConfig.fromProperties(p).vectorEncoding()).isEqualTo(VectorEncoding.SQ);
        p.setProperty("opensearch.vector-encoding", "half");
        assertThatThrownBy(() -> PipelineConfig.fromProperties(p)).hasMessageContaining("'half': one of float, sq");
    }

    @Test
    void everyKeyIsDocumentedInOperations() throws Exception {
        String operations = Files.readString(Path.of("../docs/operations.md"));
        assertThat(PipelineConfig.keys()).hasSizeGreaterThan(30).allSatisfy(key -> assertThat(
                operations.contains("`" + key + "`") || operations.contains("`." + key.substring(key.indexOf('.') + 1) + "`"))
                .as("%s in docs/operations.md", key).isTrue());
    }
}
