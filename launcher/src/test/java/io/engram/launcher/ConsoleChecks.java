package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}) against the
 * live product ({@link LiveProductViewsTest}): each page shows what the API says for the key's tenant and nothing of
 * another's, a memory's script markup stays text, and a forget from the page removes the record. With
 * {@code -Dengram.write-screenshots=true} it saves each page to docs/console/.
 */
abstract class ConsoleChecks {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path SCREENSHOTS = Path.of(System.getProperty("engram.root", ".."), "docs", "console");
    private static final Duration PATIENCE = Duration.ofSeconds(120);
    private final HttpClient http = HttpClient.newHttpClient();

    private static String memoryId(String memoryId) {
        return io.engram.store.RecordIds.memory(LiveFixture.ACME, memoryId);
    }

    private JsonNode call(String method, String path, String key, String tenant, JsonNode body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(LiveProductViewsTest.live().product.apiUrl() + path))
                .header("Authorization", "Bearer " + key)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.toString()));
        if (tenant != null) {
            request.header("X-Engram-Tenant", tenant);
        }
        HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(answer.body());
    }

    private static JsonNode acmeListing() throws Exception {
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(LiveProductViewsTest.live().product.apiUrl()
                + "/v1/memories?limit=50")).header("Authorization", "Bearer " + LiveProductViewsTest.live().key(LiveFixture.ACME)).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(answer.body());
    }

    private static Set<String> ids(JsonNode page) {
        Set<String> ids = new TreeSet<>();
        page.path("records").forEach(r -> ids.add(r.path("id").asText()));
        return ids;
    }

    private void open(String key, String tenant, String page) {
        openWithoutAKey("#" + page);
        WebElement keyField = LiveProductViewsTest.browser().findElement(By.id("key"));
        keyField.clear();
        keyField.sendKeys(key);
        if (tenant != null) {
            WebElement tenantField = LiveProductViewsTest.browser().findElement(By.id("tenant"));
            LiveProductViewsTest.browser().executeScript("arguments[0].closest('label').hidden = false", tenantField);
            tenantField.clear();
            tenantField.sendKeys(tenant);
        }
        LiveProductViewsTest.browser().findElement(By.cssSelector("#login button")).click();
        wait(ExpectedConditions.textToBePresentInElementLocated(By.id("who"), tenant == null ? "tenant " : "operator, reading " + tenant));
        // the page named in the address opens (and loads once) when the key is accepted
        wait(ExpectedConditions.visibilityOfElementLocated(By.id("page-" + page)));
        assertThat(LiveProductViewsTest.browser().findElement(By.cssSelector("nav button.active")).getAttribute("data-page")).isEqualTo(page);
    }

    /**
     * The console with no key remembered. The key is forgotten from a page of the same origin that runs no console
     * script: cleared under a console page, a sign-in still answering could write the previous key back before the
     * reload, and the console would open signed in.
     */
    private void openWithoutAKey(String fragment) {
        String api = LiveProductViewsTest.live().product.apiUrl();
        LiveProductViewsTest.browser().get(api + "/openapi.json");
        LiveProductViewsTest.browser().executeScript("sessionStorage.clear()");
        LiveProductViewsTest.browser().get(api + "/console/" + fragment);
    }

    private <T> T wait(org.openqa.selenium.support.ui.ExpectedCondition<T> condition) {
        return new WebDriverWait(LiveProductViewsTest.browser(), PATIENCE).until(condition);
    }

    private void screenshot(String page) throws Exception {
        if (Boolean.getBoolean("engram.write-screenshots")) {
            Files.createDirectories(SCREENSHOTS);
            Files.write(SCREENSHOTS.resolve(page + ".png"), LiveProductViewsTest.browser().getScreenshotAs(OutputType.BYTES));
        }
    }

    @Test
    void withoutAKeyTheFirstScreenSaysWhatToPasteWhereItComesFromAndWhatEachPageShows() throws Exception {
        openWithoutAKey("");
        WebElement welcome = wait(ExpectedConditions.visibilityOfElementLocated(By.id("welcome")));
        assertThat(welcome.getText()).contains("key: TENANT KEY", "./engram up", "./engram demo --serve",
                "./engram serve --api-keys FILE", "KEY=tenant", "operator");
        List<String> pages = new ArrayList<>();
        LiveProductViewsTest.browser().findElements(By.cssSelector("nav button")).forEach(b -> pages.add(b.getText()));
        List<String> explained = new ArrayList<>();
        for (WebElement term : welcome.findElements(By.tagName("dt"))) {
            explained.add(term.getText());
            assertThat(term.findElement(By.xpath("following-sibling::dd[1]")).getText()).as(term.getText()).isNotBlank();
        }
        assertThat(explained).as("every page is explained").isEqualTo(pages).hasSize(7);
        assertThat(LiveProductViewsTest.browser().findElements(By.cssSelector("main section[id^='page-']")))
                .noneMatch(WebElement::isDisplayed);
        screenshot("welcome");

        // a page asked for, or a key refused, keeps the first screen and says why
        LiveProductViewsTest.browser().findElement(By.cssSelector("nav button[data-page='health']")).click();
        assertThat(LiveProductViewsTest.browser().findElement(By.id("status")).getText()).isEqualTo("paste an API key first");
        LiveProductViewsTest.browser().findElement(By.id("key")).sendKeys("not-a-key-of-anyone");
        LiveProductViewsTest.browser().findElement(By.cssSelector("#login button")).click();
        wait(ExpectedConditions.textToBePresentInElementLocated(By.id("status"), "401 unauthorized"));
        assertThat(welcome.isDisplayed()).isTrue();

        open(LiveProductViewsTest.live().key(LiveFixture.ACME), null, "memories");
        assertThat(LiveProductViewsTest.browser().findElement(By.id("welcome")).isDisplayed()).isFalse();
    }

    @Test
    void theMemoriesListShowsWhatTheApiReturnsForTheTenantAndNothingOfAnother() throws Exception {
        open(LiveProductViewsTest.live().key(LiveFixture.ACME), null, "memories");
        wait(d -> d.findElements(By.cssSelector("#memories-table tbody tr")).size() >= 4);
        Set<String> shown = new TreeSet<>();
        for (WebElement row : LiveProductViewsTest.browser().findElements(By.cssSelector("#memories-table tbody tr"))) {
            shown.add(row.getAttribute("data-id"));
        }
        assertThat(shown).isEqualTo(ids(acmeListing()));
        assertThat(shown).noneMatch(id -> id.startsWith(LiveFixture.GLOBEX + "/"))
                .allMatch(id -> id.startsWith(LiveFixture.ACME + "/") || id.startsWith("doc-"));
        assertThat(LiveProductViewsTest.browser().findElement(By.id("memories-table")).getText()).doesNotContain("Globex");

        // a memory derived from another opens with its provenance: the source record and its text
        LiveProductViewsTest.browser().findElement(By.cssSelector("#memories-table tr[data-id='" + memoryId("m-lesson") + "']")).click();
        wait(ExpectedConditions.textToBePresentInElementLocated(By.id("memory-sources"), "Ann is allergic to hazelnuts"));
        assertThat(LiveProductViewsTest.browser().findElement(By.id("memory-text")).getText())
                .isEqualTo("Check every recipe for hazelnuts before suggesting it to Ann");
        assertThat(LiveProductViewsTest.browser().findElement(By.cssSelector("#memory-sources li")).getAttribute("data-id")).isEqualTo(memoryId("m-hazelnut"));
        assertThat(LiveProductViewsTest.browser().findElement(By.id("memory-fields")).getText()).contains("lesson").contains("generation\n1");
        screenshot("memories");
    }

    @Test
    void theExportButtonFetchesTheUsersRecordsWithTheKeyAsTheApiExportsThem() throws Exception {
        String key = LiveProductViewsTest.live().key(LiveFixture.ACME);
        open(key, null, "memories");
        WebElement user = LiveProductViewsTest.browser().findElement(By.id("memories-user"));
        user.clear();
        user.sendKeys("ann");
        LiveProductViewsTest.browser().findElement(By.id("memories-export")).click();
        wait(ExpectedConditions.textToBePresentInElementLocated(By.id("status"), "exported "));
        HttpResponse<String> api = http.send(HttpRequest.newBuilder(URI.create(LiveProductViewsTest.live().product.apiUrl()
                + "/v1/export?user_id=ann")).header("Authorization", "Bearer " + key).build(), HttpResponse.BodyHandlers.ofString());
        String[] lines = api.body().split("\n");
        long records = JSON.readTree(lines[lines.length - 1]).get("records").asLong();
        assertThat(records).isPositive().isEqualTo(lines.length - 1); // one page: no cursor line but the last
        assertThat(LiveProductViewsTest.browser().findElement(By.id("status")).getText())
                .isEqualTo("exported " + records + " records of user ann");
    }

    @Test
    void aMemoryOpensWithItsSupersessionChainOldestFirst() throws Exception {
        open(LiveProductViewsTest.live().key(LiveFixture.ACME), null, "memories");
        String older = memoryId("m-city-old");
        String newer = memoryId("m-city-new");
        wait(d -> !d.findElements(By.cssSelector("#memories-table tr[data-id='" + newer + "']")).isEmpty());
        LiveProductViewsTest.browser().findElement(By.cssSelector("#memories-table tr[data-id='" + newer + "']")).click();
        wait(ExpectedConditions.textToBePresentInElementLocated(By.id("memory-chain"), "Ann lives in Paris (superseded)"));
        List<WebElement> chain = LiveProductViewsTest.browser().findElements(By.cssSelector("#memory-chain li"));
        assertThat(chain).extracting(li -> li.getAttribute("data-id")).containsExactly(older, newer);
        assertThat(chain.get(0).getText()).isEqualTo(older + " — Ann lives in Paris (superseded)");
        assertThat(chain.get(1).getText()).isEqualTo("this memory: Ann has moved to Berlin");

        // the older memory opens with the same chain, the newer one current
        chain.get(0).findElement(By.tagName("a")).click();
        wait(ExpectedConditions.textToBePresentInElementLocated(By.id("memory-chain"), "Ann has moved to Berlin (current)"));
        assertThat(LiveProductViewsTest.browser().findElement(By.id("memory-text")).getText()).isEqualTo("Ann lives in Paris");
        assertThat(LiveProductViewsTest.browser().findElements(By.cssSelector("#memory-chain li")))
                .extracting(li -> li.getAttribute("data-id")).containsExactly(older, newer);
    }

    @Test
    void aMemoryWhoseTextIsScriptMarkupRendersAsTextAndRunsNothing() throws Exception {
        open(LiveProductViewsTest.live().key(LiveFixture.ACME), null, "memories");
        WebElement cell = wait(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("#memories-table tr[data-id='" + memoryId("m-script") + "'] td.text")));
        assertThat(cell.getAttribute("textContent")).isEqualTo(LiveFixture.SCRIPT_TEXT);
        LiveProductViewsTest.browser().findElement(By.cssSelector("#memories-table tr[data-id='" + memoryId("m-script") + "']")).click();
        wait(ExpectedConditions.textToBePresentInElementLocated(By.id("memory-text"), "<script>"));
        assertThat(LiveProductViewsTest.browser().findElement(By.id("memory-text")).getText()).isEqualTo(LiveFixture.SCRIPT_TEXT);
        assertThat(LiveProductViewsTest.browser().findElements(By.cssSelector("main script, main img"))).isEmpty();
        assertThat(LiveProductViewsTest.browser().executeScript("return window.engramPwned === undefined")).isEqualTo(true);
    }

    @Test
    void theContextPageShowsTheSameItemsAndReasonsAsTheApi() throws Exception {
        open(LiveProductViewsTest.live().key(LiveFixture.ACME), null, "context");
        String query = "what should a dessert for Ann avoid?";
        LiveProductViewsTest.browser().findElement(By.id("context-query")).sendKeys(query);
        LiveProductViewsTest.browser().findElement(By.id("context-session")).sendKeys("s1");
        LiveProductViewsTest.browser().findElement(By.id("context-agent")).sendKeys("support");
        WebElement budget = LiveProductViewsTest.browser().findElement(By.id("context-budget"));
        budget.clear();
        budget.sendKeys("400");
        LiveProductViewsTest.browser().findElement(By.cssSelector("#context-form button")).click();
        wait(ExpectedConditions.visibilityOfElementLocated(By.id("context-result")));
        JsonNode api = call("POST", "/v1/context", LiveProductViewsTest.live().key(LiveFixture.ACME), null, JSON.createObjectNode()
                .put("query", query).put("session_id", "s1").put("agent_id", "support").put("budget_tokens", 400));
        assertThat(api.path("agent_id").asText()).isEqualTo("support");

        // the page's request and this one were answered a moment apart, and scores decay with age: a reason's
        // decimals may differ in the last place, so they are compared to two places
        List<String> expected = new ArrayList<>();
        api.path("included").forEach(i -> expected.add(twoPlaces(i.path("section").asText() + " " + i.path("id").asText()
                + " · " + i.path("type").asText() + " · " + i.path("tokens").asInt() + " tokens · " + i.path("reason").asText())));
        List<String> shown = new ArrayList<>();
        for (WebElement item : LiveProductViewsTest.browser().findElements(By.cssSelector("#context-sections .item"))) {
            String section = item.findElement(By.xpath("..")).getAttribute("data-section");
            shown.add(twoPlaces(section + " " + item.findElement(By.cssSelector(".meta")).getText()));
        }
        assertThat(shown).isNotEmpty().containsExactlyInAnyOrderElementsOf(expected);
        assertThat(shown).anyMatch(s -> s.startsWith("hard_rules "));
        List<String> excludedApi = new ArrayList<>();
        api.path("excluded").forEach(e -> excludedApi.add(twoPlaces(e.path("id").asText() + " " + e.path("reason").asText())));
        List<String> excludedShown = new ArrayList<>();
        for (WebElement row : LiveProductViewsTest.browser().findElements(By.cssSelector("#context-excluded tbody tr"))) {
            List<WebElement> cells = row.findElements(By.tagName("td"));
            excludedShown.add(twoPlaces(cells.get(0).getText() + " " + cells.get(3).getText()));
        }
        assertThat(excludedShown).containsExactlyInAnyOrderElementsOf(excludedApi);
        assertThat(LiveProductViewsTest.browser().findElement(By.id("context-summary")).getText())
                .startsWith(api.path("tokens_used").asInt() + " of 400 tokens").contains("for agent support");
        // the budget bar: one part per section, as wide as its share of the budget
        double barWidth = LiveProductViewsTest.browser().findElement(By.id("budget-bar")).getSize().getWidth();
        double partsWidth = 0;
        for (WebElement part : LiveProductViewsTest.browser().findElements(By.cssSelector("#budget-bar span"))) {
            partsWidth += part.getSize().getWidth();
        }
        assertThat(partsWidth / barWidth).isCloseTo(api.path("tokens_used").asDouble() / 400, org.assertj.core.data.Offset.offset(0.02));
        assertThat(LiveProductViewsTest.browser().findElement(By.id("context-prompt")).getText()).isEqualTo(api.path("prompt").asText().strip());
        screenshot("context");
    }

    @Test
    void theHealthChartsHaveOnePointPerCycleRowAndMarkTheFiredAlerts() throws Exception {
        List<String[]> rows = cycleRows("sim-collapse");
        open(LiveProductViewsTest.live().operatorKey(), "sim-collapse", "health");
        wait(d -> d.findElements(By.cssSelector("circle.point[data-series='store_total']")).size() == rows.size());
        for (String series : List.of("store_total", "distinct_content_ratio", "mean_bigram_diversity", "mean_recall",
                "mean_ndcg", "mean_mrr", "accepted_actions")) {
            List<String> cycles = new ArrayList<>();
            for (WebElement p : LiveProductViewsTest.browser().findElements(By.cssSelector("circle.point[data-series='" + series + "']"))) {
                cycles.add(p.getAttribute("data-cycle"));
            }
            assertThat(cycles).as(series).containsExactlyElementsOf(rows.stream().map(r -> r[0]).toList());
        }
        Set<String> alerted = new TreeSet<>();
        rows.stream().filter(r -> !r[1].equals("[]")).forEach(r -> alerted.add(r[0]));
        assertThat(alerted).isNotEmpty();
        Set<String> marked = new TreeSet<>();
        for (WebElement chart : LiveProductViewsTest.browser().findElements(By.cssSelector("#health-charts svg"))) {
            Set<String> here = new TreeSet<>();
            chart.findElements(By.cssSelector("circle.alert")).forEach(a -> here.add(a.getAttribute("data-cycle")));
            assertThat(here).as(chart.getAttribute("data-chart")).isEqualTo(alerted);
            marked.addAll(here);
        }
        assertThat(marked).isEqualTo(alerted);
        assertThat(LiveProductViewsTest.browser().findElements(By.cssSelector("polyline.threshold[data-threshold='recall_floor']"))).hasSize(1);
        assertThat(LiveProductViewsTest.browser().findElements(By.cssSelector("#health-alerts tbody tr"))).hasSize(alerted.size());
        screenshot("health");
    }

    @Test
    void theRejectsPageShowsWhereEachCameFromAndItsBytesAsText() throws Exception {
        open(LiveProductViewsTest.live().key(LiveFixture.ACME), null, "rejects");
        WebElement group = wait(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".group[data-reason='schema_violation']")));
        List<WebElement> cells = group.findElements(By.cssSelector("tbody tr td"));
        assertThat(cells.get(1).getText()).isEqualTo(LiveProductViewsTest.live().acmeRejectAt);
        assertThat(cells.get(3).getAttribute("textContent")).isEqualTo(new String(LiveProductViewsTest.live().acmeRejectBytes, StandardCharsets.US_ASCII));
        // the tenant sees its own rejects only: the other malformed record named no tenant
        assertThat(LiveProductViewsTest.browser().findElements(By.cssSelector(".group"))).hasSize(1);
        screenshot("rejects");
    }

    @Test
    void theEntitiesPageShowsWhoTheMemoryNamesAsTheApiCountsThem() throws Exception {
        open(LiveProductViewsTest.live().key(LiveFixture.ACME), null, "entities");
        wait(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#entities-table tbody tr")));
        JsonNode entities = call("GET", "/v1/entities?limit=50", LiveProductViewsTest.live().key(LiveFixture.ACME), null, null)
                .path("entities");
        JsonNode ann = entities.get(0);
        assertThat(ann.path("name").asText()).as("the fixture's memories name Ann most").isEqualTo("ann");
        List<String> beside = new ArrayList<>();
        ann.path("co_mentions").forEach(c -> beside.add(c.path("name").asText()));
        assertThat(beside).as("where she lived and lives, each named beside her").contains("paris", "berlin");
        List<String> rows = new ArrayList<>();
        LiveProductViewsTest.browser().findElements(By.cssSelector("#entities-table tbody tr"))
                .forEach(tr -> rows.add(tr.getAttribute("data-name") + " " + tr.findElements(By.tagName("td")).get(1).getText()));
        List<String> answered = new ArrayList<>();
        entities.forEach(e -> answered.add(e.path("name").asText() + " " + e.path("records").asLong()));
        assertThat(rows).isEqualTo(answered);
        screenshot("entities");

        // a name beside another opens the records around it
        LiveProductViewsTest.browser().findElement(By.cssSelector("#entities-table tbody tr[data-name='ann'] td:nth-child(3) a"))
                .click();
        wait(ExpectedConditions.attributeToBe(By.id("entities-name"), "value", beside.get(0)));
        wait(driver -> driver.findElements(By.cssSelector("#entities-table tbody tr[data-name='" + beside.get(0) + "']")).size() == 1);
        assertThat(LiveProductViewsTest.browser().findElement(By.id("entities-summary")).getText())
                .isEqualTo("the records naming " + beside.get(0) + ", and what else they name");
    }

    @Test
    void theUsagePageShowsTheTenantsDaysAsTheApiCountsThem() throws Exception {
        open(LiveProductViewsTest.live().key(LiveFixture.ACME), null, "usage");
        WebElement today = wait(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#usage-days tbody tr")));
        JsonNode days = call("GET", "/v1/usage", LiveProductViewsTest.live().key(LiveFixture.ACME), null, null).path("usage");
        JsonNode newest = days.get(days.size() - 1);
        assertThat(newest.path("records_written").asLong()).as("the fixture's writes of acme").isGreaterThanOrEqualTo(7);
        List<String> cells = new ArrayList<>();
        today.findElements(By.tagName("td")).forEach(td -> cells.add(td.getText()));
        assertThat(cells).containsExactly(newest.path("day").asText(), newest.path("records_written").asText(),
                newest.path("bytes_written").asText(), newest.path("writes").asText(), newest.path("reads").asText(),
                newest.path("contexts").asText(), newest.path("forgets").asText(), newest.path("embed_millis").asText());
        assertThat(LiveProductViewsTest.browser().findElement(By.id("usage-summary")).getText()).startsWith("acme in the last 30 days: ");
        screenshot("usage");
    }

    @Test
    void aForgetFromThePageRemovesTheRecord() throws Exception {
        String id = memoryId("m-forget");
        String path = "/v1/memories/" + java.net.URLEncoder.encode(id, StandardCharsets.UTF_8);
        assertThat(call("GET", path, LiveProductViewsTest.live().key(LiveFixture.ACME), null, null).path("id").asText()).isEqualTo(id);
        open(LiveProductViewsTest.live().key(LiveFixture.ACME), null, "forget");
        new Select(LiveProductViewsTest.browser().findElement(By.id("forget-scope"))).selectByValue("memories");
        LiveProductViewsTest.browser().findElement(By.id("forget-target")).sendKeys(id);
        LiveProductViewsTest.browser().findElement(By.cssSelector("#forget-form button")).click();
        wait(ExpectedConditions.alertIsPresent()).accept();
        wait(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#forget-progress li[data-status='done']")));
        assertThat(LiveProductViewsTest.browser().findElement(By.cssSelector("#forget-progress li")).getText()).endsWith("done, 1 records removed");
        assertThat(call("GET", path, LiveProductViewsTest.live().key(LiveFixture.ACME), null, null).path("error").path("code").asText())
                .isEqualTo("not_found");
        screenshot("forget");
    }

    @Test
    void anOperatorKeyReadsEveryTenantAndForgetsNothing() throws Exception {
        JsonNode tenants = call("GET", "/v1/tenants", LiveProductViewsTest.live().operatorKey(), null, null);
        assertThat(tenants.path("operator").asBoolean()).isTrue();
        assertThat(tenants.path("tenants").toString()).contains("sim-collapse", "sim-churn");
        assertThat(call("GET", "/v1/memories?limit=5", LiveProductViewsTest.live().operatorKey(), LiveFixture.GLOBEX, null).path("records").get(0)
                .path("text").asText()).isEqualTo("Globex's launch date is the third of March");
        assertThat(call("DELETE", "/v1/memories/" + java.net.URLEncoder.encode(memoryId("m-hazelnut"), StandardCharsets.UTF_8),
                LiveProductViewsTest.live().operatorKey(), LiveFixture.ACME, null)
                .path("error").path("code").asText()).isEqualTo("insufficient_scope");
        // a tenant key may not name another tenant
        assertThat(call("GET", "/v1/memories?limit=5", LiveProductViewsTest.live().key(LiveFixture.ACME), LiveFixture.GLOBEX, null)
                .path("error").path("code").asText()).isEqualTo("forbidden");
    }

    /** The text with every decimal number rounded to two places. */
    private static String twoPlaces(String text) {
        return java.util.regex.Pattern.compile("\\d+\\.\\d+").matcher(text).replaceAll(m ->
                String.format(java.util.Locale.ROOT, "%.2f", Double.parseDouble(m.group())));
    }

    /** The tenant's cycle rows, oldest first: cycle id and alerts_json. */
    private static List<String[]> cycleRows(String tenant) throws Exception {
        List<String[]> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(LiveProductViewsTest.live().product.pipeline().getProperty("postgres.url"), "postgres", "");
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT cycle_id, alerts_json FROM cycle_metrics WHERE tenant_id = '" + tenant
                     + "' ORDER BY ts, cycle_id")) {
            while (rs.next()) {
                rows.add(new String[] {rs.getString(1), rs.getString(2)});
            }
        }
        return rows;
    }
}
