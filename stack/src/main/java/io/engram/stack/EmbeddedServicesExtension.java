package io.engram.stack;

import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that hands tests a real {@link EmbeddedKafka}, {@link EmbeddedOpenSearch} or
 * {@link EmbeddedPostgreSql} as a method or constructor parameter. Each service starts on first request and
 * is shared by every test class of the JVM, then stopped when the test plan ends: on 2 cores, starting
 * OpenSearch once per class would dominate the suite.
 */
public final class EmbeddedServicesExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(EmbeddedServicesExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == EmbeddedKafka.class || type == EmbeddedOpenSearch.class || type == EmbeddedPostgreSql.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        ExtensionContext.Store store = context.getRoot().getStore(NAMESPACE);
        if (type == EmbeddedKafka.class) {
            return shared(store, EmbeddedKafka.class, () -> EmbeddedKafka.start(ServiceOptions.ephemeral()));
        }
        if (type == EmbeddedOpenSearch.class) {
            return shared(store, EmbeddedOpenSearch.class, () -> EmbeddedOpenSearch.start(ServiceOptions.ephemeral()));
        }
        if (type == EmbeddedPostgreSql.class) {
            return shared(store, EmbeddedPostgreSql.class, () -> EmbeddedPostgreSql.start(ServiceOptions.ephemeral()));
        }
        throw new ParameterResolutionException("not an embedded service: " + type);
    }

    private static <T extends AutoCloseable> T shared(ExtensionContext.Store store, Class<T> type, Supplier<T> start) {
        // The root store closes AutoCloseable values when the whole test plan is done.
        return store.getOrComputeIfAbsent(type, key -> start.get(), type);
    }
}
