package io.engram.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * What people look at, against one live embedded product ({@link LiveFixture}: what {@code ./engram up} runs,
 * with every fixture record sent at start) that lives exactly as long as these tests: what an operator watches
 * ({@link MonitoringChecks}) and the web console in a headless Chromium ({@link ConsoleChecks}).
 */
class LiveProductViewsTest {

    private static LiveFixture live;
    private static ChromeDriver browser;

    @BeforeAll
    static void start() throws Exception {
        live = LiveFixture.start();
        // every fixture record searchable, and the simulations' cycles all closed, so what tests read holds still
        Polling.await("acme's fixture memories listed", Duration.ofSeconds(120), () -> live.listsMemories(LiveFixture.ACME,
                Set.of("m-hazelnut", "m-lesson", "m-script", "m-forget", "m-city-new")));
        live.awaitSimulationsClosed();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (browser != null) {
                browser.quit();
            }
        } finally {
            if (live != null) {
                live.product.close();
            }
        }
    }

    static LiveFixture live() {
        return live;
    }

    /** Debian's chromium through its chromedriver, headless, started by the first test that needs it. */
    static synchronized ChromeDriver browser() {
        if (browser == null) {
            ChromeOptions options = new ChromeOptions();
            options.setBinary(CHROMIUM.toString());
            options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000");
            browser = new ChromeDriver(new ChromeDriverService.Builder()
                    .usingDriverExecutable(CHROMEDRIVER.toFile()).build(), options);
        }
        return browser;
    }

    private static final Path CHROMIUM = Path.of(System.getProperty("engram.chromium", "/usr/bin/chromium"));
    private static final Path CHROMEDRIVER = Path.of(System.getProperty("engram.chromedriver", "/usr/bin/chromedriver"));

    /**
     * The console's tests fail at once, with one line saying how to install what they drive, when the browser is
     * not there: {@code ./engram test} installs it; a plain {@code mvn verify} without it does not pass.
     */
    static void requireBrowser() {
        List<String> missing = java.util.stream.Stream.of(CHROMIUM, CHROMEDRIVER).filter(f -> !Files.isExecutable(f))
                .map(Path::toString).toList();
        if (!missing.isEmpty()) {
            AssertionError error = new AssertionError("the console's browser tests drive Debian's chromium through its"
                    + " chromedriver, and " + String.join(" and ", missing) + " is not there: install them with"
                    + " `apt-get install -y chromium chromium-driver` (as root), or run the tests with ./engram test,"
                    + " which installs them");
            error.setStackTrace(new StackTraceElement[0]); // the line above is the whole story
            throw error;
        }
    }

    /** The product the checks look at is whole: the service finds OpenSearch, Kafka and PostgreSQL. */
    @org.junit.jupiter.api.Test
    void theLiveProductIsReady() throws Exception {
        java.net.http.HttpResponse<String> ready = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(live.product.apiUrl() + "/readyz")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        org.assertj.core.api.Assertions.assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        org.assertj.core.api.Assertions.assertThat(ready.body()).contains("\"opensearch\":\"ok\"", "\"kafka\":\"ok\"",
                "\"postgres\":\"ok\"");
    }

    @Nested
    class Monitoring extends MonitoringChecks {
    }

    @Nested
    class Console extends ConsoleChecks {
        @BeforeAll
        static void browserInstalled() {
            requireBrowser();
        }
    }
}
