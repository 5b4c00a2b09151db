package io.engram.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void everyKeyIsDocumentedInOperations() throws Exception {
        String operations = Files.readString(Path.of("../docs/operations.md"));
        assertThat(PipelineConfig.keys()).hasSizeGreaterThan(30).allSatisfy(key -> assertThat(
                operations.contains("`" + key + "`") || operations.contains("`." + key.substring(key.indexOf('.') + 1) + "`"))
                .as("%s in docs/operations.md", key).isTrue());
    }
}
