package dev.tandem.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The web console driven in real headless Chromium ({@link ConsoleBrowser}): the page loads, an index created
 * through the console on a table of {@value #ROWS} rows shows its hydration progress bar rising to 100 %, a
 * lookup shows the right rows with the read's path and runtime, a refused lookup is listed among the errors,
 * the charts draw, SQL answers, a watched lookup follows rows written and deleted after it started, and a
 * second index hydrates with everything on screen. The page logs no error but the refusal it was asked for.
 * Screenshots go to {@code target/console-*.png} ({@code console-hydrating.png} is the README's picture).
 * Without Chromium the test is skipped with a loud message outside CI and fails on CI ({@code CI=true}).
 */
// Closed after the class: a cached context would keep a server (and its shared fate) running through later tests.
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "server.address=127.0.0.1", "tandem.storage.fsync=false",
        "tandem.compute.maintenance-workers=2", "tandem.compute.interactive-workers=1"})
class ConsoleBrowserTest {

    /** Enough rows that hydration spans some of the console's refreshes (four a second while an index hydrates). */
    static final int ROWS = 1_000_000;
    static final int ROWS_PER_WRITE = 20_000;

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) {
        registry.add("tandem.storage.data-dir", () -> dir.resolve("data").toString());
    }

    @BeforeAll
    static void chromiumIsInstalled() {
        ConsoleBrowser.requireChromium("ConsoleBrowserTest");
    }

    @Value("${local.server.port}")
    int port;

    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    ConsoleBrowser browser;

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    /** Longer than the suite's default of 120 s: on a loaded two-core machine Chromium and the hydration share the CPU. */
    @Test
    @Timeout(180)
    void showsHydrationProgressAndAnswersALookup() throws Exception {
        String base = "http://127.0.0.1:" + port;
        post(base + "/v1/tables", """
                {"name":"events","columns":[{"name":"id","type":"int64","nullable":false},{"name":"account","type":"int64"},{"name":"note","type":"string"}]}""");
        for (int from = 0; from < ROWS; from += ROWS_PER_WRITE) {
            StringBuilder insert = new StringBuilder("{\"insert\":[");
            for (int id = from; id < from + ROWS_PER_WRITE; id++) {
                insert.append(id == from ? "" : ",").append('[').append(id).append(',').append(id % 1000).append(",\"n").append(id).append("\"]");
            }
            post(base + "/v1/tables/events/rows", insert.append("]}").toString());
        }

        browser = new ConsoleBrowser(dir.resolve("chromium"), "console");
        WebDriver page = browser.driver;
        page.get(base + "/");
        await("the console is live").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.text(By.id("status")).startsWith("live"));
        assertThat(page.getTitle()).isEqualTo("Tandem console");
        checkPureFunctions();

        browser.createIndex("events_by_id", "events", "id");
        List<Integer> first = browser.awaitHydrated("events_by_id", "console-first-hydration.png");
        System.out.println("ConsoleBrowserTest: the progress bar of events_by_id showed " + first + " %");
        String row = "tr[data-index='events_by_id']";
        await("the records column shows every row").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.js("return document.querySelector(arguments[0]).textContent", row)
                        .contains(String.format(Locale.ENGLISH, "%,d", ROWS)));
        // The table's own row: its records (one update per row written) and where its write frontier stands.
        String tableRow = "tr[data-table='events']";
        await("the table shows its records").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.js("return document.querySelector(arguments[0]).textContent", tableRow)
                        .contains(String.format(Locale.ENGLISH, "%,d", ROWS)));
        assertThat(browser.tableCells("#tables table").get(0)).containsExactly("name", "id", "columns", "records", "since", "write frontier", "lag");

        new Select(page.findElement(By.id("lookup-index"))).selectByValue("events_by_id");
        WebElement key = page.findElement(By.id("lookup-key"));
        key.sendKeys("4242, 77, " + ROWS);
        page.findElement(By.id("run")).click();
        await("the lookup's rows are shown").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.present(By.id("result-table")));
        assertThat(browser.tableCells("#result-table")).containsExactly(
                List.of("id", "account", "note"),
                List.of("77", "77", "n77"),
                List.of("4242", "242", "n4242"));
        assertThat(browser.text(By.cssSelector("[data-field=path] .field-value"))).isEqualTo("fast");
        assertThat(browser.text(By.cssSelector("[data-field=runtime] .field-value"))).isEqualTo("interactive");
        assertThat(browser.text(By.cssSelector("[data-field=as_of] .field-value"))).matches("\\d+ \\(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\)");
        assertThat(browser.text(By.cssSelector("[data-field=rows] .field-value"))).isEqualTo("2");
        browser.screenshot("console-lookup.png");

        // A key the index's column cannot hold is refused, and the refusal is listed among the errors.
        key.clear();
        key.sendKeys("not-a-number");
        page.findElement(By.id("run")).click();
        await("the refusal is listed").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.present(By.id("console-rejections-table")));
        int refused = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/indexes/events_by_id/rows?key=not-a-number")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
        assertThat(refused).isBetween(400, 499);
        assertThat(browser.text(By.id("result-meta"))).startsWith(refused + " ");
        assertThat(browser.text(By.id("console-rejections-table"))).contains("/v1/indexes/events_by_id/rows", Integer.toString(refused), "not-a-number");

        // Both charts draw (uPlot loads from its WebJar), the latency chart once two scrapes are apart.
        await("the charts draw").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> browser.present(By.cssSelector("#lag-chart .uplot canvas"))
                        && browser.present(By.cssSelector("#latency-chart .uplot canvas"))
                        && browser.present(By.cssSelector("#latency-tiles [data-tile=p99]")));

        // SQL mode is offered exactly when the server lists POST /v1/sql; this server has it.
        int sql = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/sql")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        assertThat(sql).as("this server has SQL").isNotIn(404, 405);
        await("SQL mode is offered").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> page.findElement(By.cssSelector("[data-mode=sql]")).isDisplayed());

        // SQL through the console: a point query answered from the index, shown as a table.
        page.findElement(By.cssSelector("[data-mode=sql]")).click();
        assertThat(page.findElement(By.id("watch")).isDisplayed()).as("watch follows lookups only").isFalse();
        WebElement sqlText = page.findElement(By.id("sql-text"));
        sqlText.clear();
        sqlText.sendKeys("SELECT id, note FROM events WHERE id = 77");
        page.findElement(By.id("run")).click();
        await("the SQL answer is shown").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.present(By.id("result-table"))
                        && browser.tableCells("#result-table").equals(List.of(List.of("id", "note"), List.of("77", "n77"))));

        // Watch: the lookup's rows, live from the index's change stream; rows written and deleted afterwards show up.
        page.findElement(By.cssSelector("[data-mode=lookup]")).click();
        new Select(page.findElement(By.id("lookup-index"))).selectByValue("events_by_id");
        key.clear();
        key.sendKeys("77, " + (ROWS + 1));
        await("the watch button is offered").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> page.findElement(By.id("watch")).isDisplayed());
        page.findElement(By.id("watch")).click();
        await("the watched rows are shown").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.present(By.cssSelector("#watch-table tbody tr")));
        assertThat(browser.tableCells("#watch-table")).containsExactly(List.of("id", "account", "note"), List.of("77", "77", "n77"));
        post(base + "/v1/tables/events/rows", "{\"insert\":[[" + (ROWS + 1) + ",1,\"watched\"]]}");
        await("the new row arrives in the watched result").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.tableCells("#watch-table").size() == 3);
        assertThat(browser.tableCells("#watch-table")).containsExactly(
                List.of("id", "account", "note"), List.of("77", "77", "n77"), List.of(Integer.toString(ROWS + 1), "1", "watched"));
        post(base + "/v1/tables/events/rows", "{\"delete\":[[77,77,\"n77\"]]}");
        await("the deleted row leaves the watched result").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.tableCells("#watch-table").size() == 2);
        assertThat(browser.tableCells("#watch-table")).containsExactly(
                List.of("id", "account", "note"), List.of(Integer.toString(ROWS + 1), "1", "watched"));
        assertThat(browser.text(By.cssSelector("[data-field=rows] .field-value"))).isEqualTo("1");
        List<List<String>> changes = browser.tableCells("#watch-changes");
        assertThat(changes.get(0)).containsExactly("timestamp", "±", "id", "account", "note");
        assertThat(changes.subList(1, changes.size())).extracting(r -> r.subList(1, r.size())).containsExactly(
                List.of("-1", "77", "77", "n77"), List.of("+1", Integer.toString(ROWS + 1), "1", "watched"));
        browser.js("document.querySelector('#query').scrollIntoView()");
        browser.screenshot("console-watch.png");
        browser.js("window.scrollTo(0, 0)");
        page.findElement(By.id("watch")).click();
        await("the watch stops").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.text(By.id("watch")).equals("Watch"));

        // A second index hydrates with the charts and the other panels full: the README's picture.
        browser.createIndex("events_by_account", "events", "account");
        List<Integer> second = browser.awaitHydrated("events_by_account", "console-hydrating.png");
        System.out.println("ConsoleBrowserTest: the progress bar of events_by_account showed " + second + " %");
        browser.screenshot("console.png");

        assertThat(browser.assertNoConsoleErrors(message -> message.contains("key=not-a-number") && message.contains("status of " + refused)))
                .as("the refused lookup, logged by the browser").hasSize(1);
    }

    /** The console's pure functions, imported in the page and checked against values worked out by hand. */
    private void checkPureFunctions() {
        // Latency quantiles, estimated from histogram buckets.
        String quantiles = browser.asyncJs("""
                const p = await import('./console/prometheus.js');
                const before = [[0.001, 5], [0.002, 5], [0.005, 5], [Infinity, 5]];
                const now = [[0.001, 15], [0.002, 65], [0.005, 105], [Infinity, 105]];
                const d = p.difference(now, before);
                return [p.quantile(0.5, d), p.quantile(0.99, d), p.quantile(0.5, [[0.001, 0], [Infinity, 4]]), p.quantile(0.5, before.map(([le]) => [le, 0]))].join(' ');
                """);
        String[] q = quantiles.split(" ", -1);
        assertThat(q).as(quantiles).hasSize(4);
        assertThat(Double.parseDouble(q[0])).as("p50: rank 50 of 100, 40 of the 50 in (1 ms, 2 ms]").isCloseTo(0.0018, within(1e-12));
        assertThat(Double.parseDouble(q[1])).as("p99: rank 99, 39 of the 40 in (2 ms, 5 ms]").isCloseTo(0.004925, within(1e-12));
        assertThat(Double.parseDouble(q[2])).as("a rank in +Inf: the highest finite bound").isEqualTo(0.001);
        assertThat(q[3]).as("no observations: no quantile").isEmpty();

        // The bar: records processed over the estimated total, at most 99 until hydrated, never going back.
        assertThat(browser.asyncJs("""
                const { hydrationPercent } = await import('./console/catalog.js');
                return [hydrationPercent({ hydrated: false }, { processed: 1, total: 4 }),
                        hydrationPercent({ hydrated: false }, { processed: 3, total: 3 }),
                        hydrationPercent({ hydrated: false }, { processed: 0, total: 0 }),
                        hydrationPercent({ hydrated: false }, { processed: 1, total: 10 }, 40),
                        hydrationPercent({ hydrated: false }, undefined),
                        hydrationPercent({ hydrated: true }, { processed: 3, total: 4 })].join(' ');
                """)).isEqualTo("25 99 0 40 0 100");

        // A watched result: a multiset of rows, changed by diffs, drawn in order, refused past its size.
        assertThat(browser.asyncJs("""
                const { LiveResult } = await import('./console/query.js');
                const r = new LiveResult(3);
                const fits = [r.apply([[[2, 'b'], 1], [[1, 'a'], 2], [[10, null], 1]]), r.apply([[[1, 'a'], -1], [[2, 'b'], -1]])];
                const shown = JSON.stringify(r.sorted(10));
                fits.push(r.apply([[[3, 'c'], 1], [[4, 'd'], 1], [[5, 'e'], 1]]));
                return [fits.join(','), shown, r.sorted(2).length].join(' ');
                """)).isEqualTo("true,true,false [[1,\"a\"],[10,null]] 2");

        // The error collections, drawn from rows as the introspection API answers them.
        assertThat(browser.asyncJs("""
                const { ErrorsView } = await import('./console/errors.js');
                const root = document.createElement('div');
                for (const id of ['failed-indexes', 'source-errors', 'storage-errors', 'server-rejections', 'console-rejections']) {
                  root.append(Object.assign(document.createElement('div'), { id }));
                }
                const view = new ErrorsView(root, { listeners: new Set(), rejected: [] });
                view.renderCollections([{ name: 'clicks', state: 'failed', detail: 'no topic clicks' }, { name: 'ok', state: 'running', detail: null }],
                  [{ source: 'clicks', partition: 0, offset: 12, error: 'not JSON', value: '{oops' }],
                  [{ table: 'orders', row: '[1,2]', multiplicity: -1, log_offset: 7, error: 'negative count' }]);
                const rows = id => [...root.querySelectorAll(`#${id} tbody tr`)].map(tr => [...tr.cells].map(c => c.textContent).join('|'));
                return JSON.stringify([rows('source-errors-table'), rows('storage-errors-table')]);
                """)).isEqualTo("[[\"clicks|||failed: no topic clicks|\",\"clicks|0|12|not JSON|{oops\"],[\"orders|[1,2]|-1|7|negative count\"]]");
    }

    private void post(String url, String json) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("POST %s: %s", url, r.body()).isBetween(200, 299);
    }
}
