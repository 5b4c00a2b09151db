package io.engram.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaClientsTest {

    @Test
    void kafkaClientsShowTheirSettingsByNameOnly() {
        KafkaClients kafka = new KafkaClients("broker:9093", Map.of("security.protocol", "SASL_SSL",
                "sasl.jaas.config", "Module required password=\"hunter2\";"));
        assertThat(kafka.toString()).doesNotContain("hunter2").contains("sasl.jaas.config");
        assertThat(kafka.config()).containsEntry("bootstrap.servers", "broker:9093")
                .containsEntry("sasl.jaas.config", "Module required password=\"hunter2\";");
    }
}
