package io.engram.stack;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import org.codelibs.opensearch.runner.OpenSearchRunner;
import org.opensearch.painless.PainlessPlugin;
import org.opensearch.plugins.ExtensiblePlugin;

/**
 * A real single OpenSearch node in this JVM, with the k-NN plugin loaded from the classpath.
 *
 * <p>Every {@code knn_vector} field must name {@code method.engine: lucene}: the faiss and nmslib engines
 * have no native libraries here and hang the first flush.
 */
public final class EmbeddedOpenSearch implements AutoCloseable {

    static final String KNN_PLUGIN = "org.opensearch.knn.plugin.KNNPlugin";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static boolean painlessExtensionsLoaded;

    private final OpenSearchRunner runner;
    private final Path dataDir;
    private final boolean temporary;
    private final int httpPort;

    private EmbeddedOpenSearch(OpenSearchRunner runner, Path dataDir, boolean temporary, int httpPort) {
        this.runner = runner;
        this.dataDir = dataDir;
        this.temporary = temporary;
        this.httpPort = httpPort;
    }

    /** Starts the node and returns once the cluster is at least yellow and HTTP answers. */
    public static EmbeddedOpenSearch start(ServiceOptions options) {
        loadPainlessExtensions();
        int httpPort = options.resolvePort();
        int transportPort = ServiceOptions.freePort();
        Path dataDir = options.resolveDataDir("engram-opensearch");
        OpenSearchRunner runner = new OpenSearchRunner();
        runner.onBuild((index, settings) -> {
            settings.put("cluster.name", "engram");
            settings.put("network.host", "127.0.0.1");
            settings.put("http.port", String.valueOf(httpPort));
            settings.put("transport.port", String.valueOf(transportPort));
            settings.put("discovery.type", "single-node");
            settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
            settings.put("action.auto_create_index", "false");
        });
        runner.build(new OpenSearchRunner.Configs()
                .basePath(dataDir.toAbsolutePath().toString())
                .numOfNode(1)
                .clusterName("engram")
                .pluginTypes(KNN_PLUGIN)
                .disableESLogger()
                .useLogger());
        EmbeddedOpenSearch node = new EmbeddedOpenSearch(runner, dataDir, options.temporary(), httpPort);
        try {
            runner.ensureYellow();
            node.awaitHttp();
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
        return node;
    }

    /**
     * A classpath plugin gets no {@code extended.plugins} wiring, so Painless never hears of the k-NN
     * (and analysis/ingest) script extensions. Painless keeps them in static state: load them once per JVM.
     */
    private static synchronized void loadPainlessExtensions() {
        if (painlessExtensionsLoaded) {
            return;
        }
        new PainlessPlugin().loadExtensions(new ExtensiblePlugin.ExtensionLoader() {
            @Override
            public <T> List<T> loadExtensions(Class<T> type) {
                return ServiceLoader.load(type, EmbeddedOpenSearch.class.getClassLoader()).stream()
                        .map(ServiceLoader.Provider::get)
                        .toList();
            }
        });
        painlessExtensionsLoaded = true;
    }

    private void awaitHttp() {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> response = client.send(
                        HttpRequest.newBuilder(URI.create(httpUrl() + "/_cluster/health")).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for opensearch", e);
            }
            Waits.pause(Duration.ofMillis(200));
        }
        throw new IllegalStateException("opensearch HTTP did not answer on " + httpUrl(), last);
    }

    /** {@code http://127.0.0.1:PORT}. */
    public String httpUrl() {
        return "http://127.0.0.1:" + httpPort;
    }

    public int httpPort() {
        return httpPort;
    }

    @Override
    public void close() {
        try {
            runner.close();
        } catch (IOException e) {
            throw new IllegalStateException("opensearch did not close cleanly", e);
        } finally {
            if (temporary) {
                Directories.deleteQuietly(dataDir);
            }
        }
    }
}
