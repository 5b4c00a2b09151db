package io.engram.client;

import java.io.Serializable;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * How every Kafka client Engram opens reaches the cluster: the bootstrap servers and the standard Kafka client
 * settings given as {@code kafka.properties.*} (security.protocol, sasl.mechanism, sasl.jaas.config,
 * ssl.truststore.*, ssl.keystore.*, …), passed through as they are. A value may be a {@link Secrets} reference,
 * resolved when a client is configured.
 */
public record KafkaClients(String bootstrap, Map<String, String> properties) implements Serializable {

    /** The prefix of the client settings among Engram's settings. */
    public static final String PREFIX = "kafka.properties.";

    public KafkaClients {
        properties = Map.copyOf(properties);
    }

    /** A cluster reached without client settings (a local broker). */
    public static KafkaClients at(String bootstrap) {
        return new KafkaClients(bootstrap, Map.of());
    }

    /** The {@code kafka.properties.*} entries of a settings file, without the prefix. */
    public static Map<String, String> propertiesIn(Properties settings) {
        Map<String, String> out = new TreeMap<>();
        settings.stringPropertyNames().stream().filter(k -> k.startsWith(PREFIX))
                .forEach(k -> out.put(k.substring(PREFIX.length()), settings.getProperty(k)));
        return out;
    }

    /** A client's configuration: the bootstrap servers and the settings, secrets resolved. */
    public Properties config() {
        Properties config = new Properties();
        config.put("bootstrap.servers", bootstrap);
        properties.forEach((k, v) -> config.put(k, Secrets.resolve(v)));
        return config;
    }

    /** The settings by name only: values may be secrets. */
    @Override
    public String toString() {
        return "KafkaClients[" + bootstrap + ", settings " + properties.keySet() + "]";
    }
}
