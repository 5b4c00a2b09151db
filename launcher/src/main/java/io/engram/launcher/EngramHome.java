package io.engram.launcher;

import java.nio.file.Path;

/**
 * Where Engram keeps what belongs to the user on this machine rather than to a checkout: the pipelines' default
 * state ({@code state/}) and the records of the {@code ./engram up} processes running ({@code run/}). The
 * {@code engram.home} system property, else the {@code ENGRAM_HOME} environment variable, else {@code ~/.engram}.
 */
final class EngramHome {

    private EngramHome() {
    }

    static Path dir() {
        String property = System.getProperty("engram.home");
        if (property != null && !property.isBlank()) {
            return Path.of(property);
        }
        String variable = System.getenv("ENGRAM_HOME");
        return variable != null && !variable.isBlank() ? Path.of(variable)
                : Path.of(System.getProperty("user.home"), ".engram");
    }

    /**
     * The default {@code state.dir}: one per Kafka cluster, each consumer group's checkpoints in a folder of its own
     * there, so two pipelines on one machine (staging and production, two products) never share state by accident.
     */
    static Path state(String kafkaClusterId) {
        return dir().resolve("state").resolve(safe(kafkaClusterId));
    }

    /** Where each running {@code ./engram up} records its addresses ({@link RunRegistry}). */
    static Path runs() {
        return dir().resolve("run");
    }

    /** A consumer group or cluster id as a folder name. */
    static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
