package io.engram.stack;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Any subset of the three embedded services, started together and stopped in reverse order.
 * A data root, when given, holds {@code kafka/}, {@code opensearch/} and {@code postgres/} and survives restarts.
 */
public final class EmbeddedStack implements AutoCloseable {

    /** The services the stack can run. */
    public enum Service { KAFKA, OPENSEARCH, POSTGRES }

    /** What to start, on which ports ({@code 0} = free) and where to keep data. */
    public record Config(Set<Service> services, int kafkaPort, int openSearchPort, int postgresPort,
                         Optional<Path> dataRoot) {

        /**
         * The whole embedded product's servers: all three on free ports, their data under {@code dataRoot} when
         * given (kept across restarts), else in temporary directories removed at stop.
         */
        public static Config all(Optional<Path> dataRoot) {
            return new Config(EnumSet.allOf(Service.class), 0, 0, 0, dataRoot);
        }

        ServiceOptions options(Service service) {
            int port = switch (service) {
                case KAFKA -> kafkaPort;
                case OPENSEARCH -> openSearchPort;
                case POSTGRES -> postgresPort;
            };
            return new ServiceOptions(port, dataRoot.map(root -> root.resolve(service.name().toLowerCase())));
        }
    }

    private final EmbeddedKafka kafka;
    private final EmbeddedOpenSearch openSearch;
    private final EmbeddedPostgreSql postgres;

    private EmbeddedStack(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres) {
        this.kafka = kafka;
        this.openSearch = openSearch;
        this.postgres = postgres;
    }

    /**
     * Starts the requested services one after another (they compete for the same two cores) and calls
     * {@code onReady} as each becomes ready. If one fails, those already started are stopped.
     */
    public static EmbeddedStack start(Config config, ReadyListener onReady) {
        List<AutoCloseable> started = new ArrayList<>();
        try {
            EmbeddedKafka kafka = null;
            EmbeddedOpenSearch openSearch = null;
            EmbeddedPostgreSql postgres = null;
            if (config.services().contains(Service.KAFKA)) {
                kafka = EmbeddedKafka.start(config.options(Service.KAFKA));
                started.add(kafka);
                onReady.ready(Service.KAFKA, kafka.bootstrapServers());
            }
            if (config.services().contains(Service.POSTGRES)) {
                postgres = EmbeddedPostgreSql.start(config.options(Service.POSTGRES));
                started.add(postgres);
                onReady.ready(Service.POSTGRES, postgres.jdbcUrl());
            }
            if (config.services().contains(Service.OPENSEARCH)) {
                openSearch = EmbeddedOpenSearch.start(config.options(Service.OPENSEARCH));
                started.add(openSearch);
                onReady.ready(Service.OPENSEARCH, openSearch.httpUrl());
            }
            return new EmbeddedStack(kafka, openSearch, postgres);
        } catch (RuntimeException e) {
            Collections.reverse(started);
            closeAll(started, e);
            throw e;
        }
    }

    /** Called once per service when it is ready, with its address. */
    @FunctionalInterface
    public interface ReadyListener {
        void ready(Service service, String address);
    }

    public Optional<EmbeddedKafka> kafka() {
        return Optional.ofNullable(kafka);
    }

    public Optional<EmbeddedOpenSearch> openSearch() {
        return Optional.ofNullable(openSearch);
    }

    public Optional<EmbeddedPostgreSql> postgres() {
        return Optional.ofNullable(postgres);
    }

    @Override
    public void close() {
        List<AutoCloseable> running = new ArrayList<>();
        if (openSearch != null) {
            running.add(openSearch);
        }
        if (postgres != null) {
            running.add(postgres);
        }
        if (kafka != null) {
            running.add(kafka);
        }
        RuntimeException failure = new IllegalStateException("some embedded services did not stop cleanly");
        closeAll(running, failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    private static void closeAll(List<AutoCloseable> services, RuntimeException collector) {
        for (AutoCloseable service : services) {
            try {
                service.close();
            } catch (Exception e) {
                collector.addSuppressed(e);
            }
        }
    }
}
