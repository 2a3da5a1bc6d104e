package dev.tandem.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The web console driven in real headless Chromium (Debian's {@code chromium} and {@code chromium-driver},
 * which {@code .ci/run} installs; {@code CHROMIUM_BINARY} and {@code CHROMEDRIVER_BINARY} override the
 * paths): the page loads, an index created through the console on a table of {@value #ROWS} rows shows
 * its hydration progress bar rising to 100 %, a lookup shows the right rows with the read's path and
 * runtime, a refused lookup is listed among the errors, and the charts draw. Screenshots go to
 * {@code target/console-*.png}. Without Chromium the test is skipped with a loud message outside CI and
 * fails on CI ({@code CI=true}).
 */
// Closed after the class: a cached context would keep a server (and its shared fate) running through later tests.
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "server.address=127.0.0.1", "tandem.storage.fsync=false",
        "tandem.compute.maintenance-workers=2", "tandem.compute.interactive-workers=1"})
class ConsoleBrowserTest {

    static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM_BINARY", "/usr/bin/chromium"));
    static final Path CHROMEDRIVER = Path.of(System.getenv().getOrDefault("CHROMEDRIVER_BINARY", "/usr/bin/chromedriver"));

    /** Enough rows that hydration spans several of the console's refreshes on a small machine. */
    static final int ROWS = 200_000;
    static final int ROWS_PER_WRITE = 20_000;

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) {
        registry.add("tandem.storage.data-dir", () -> dir.resolve("data").toString());
    }

    @BeforeAll
    static void chromiumIsInstalled() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            String why = CHROMIUM + " or " + CHROMEDRIVER + " is missing: install the Debian packages 'chromium' and"
                    + " 'chromium-driver' (.ci/run does) or set CHROMIUM_BINARY and CHROMEDRIVER_BINARY to drive the console";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail(why);
            }
            System.err.println();
            System.err.println("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
            System.err.println("!!! SKIPPED ConsoleBrowserTest: the web console was NOT tested in a browser.");
            System.err.println("!!! " + why);
            System.err.println("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
            System.err.println();
            Assumptions.abort(why);
        }
    }

    @Value("${local.server.port}")
    int port;

    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    WebDriver browser;

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.quit();
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

        browser = startChromium();
        browser.get(base + "/");
        await("the console is live").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> text(By.id("status")).startsWith("live"));
        assertThat(browser.getTitle()).isEqualTo("Tandem console");

        WebElement form = browser.findElement(By.id("create-index"));
        form.findElement(By.name("name")).sendKeys("events_by_id");
        new Select(form.findElement(By.name("on"))).selectByValue("events");
        form.findElement(By.name("key")).sendKeys("id");
        form.findElement(By.cssSelector("button[type=submit]")).click();

        // The bar of the new index, read as the console redraws it each second, until it shows a hydrated index.
        String row = "tr[data-index='events_by_id']";
        List<Integer> seen = new ArrayList<>();
        await("the progress bar reaches 100 % (seen: " + seen + ")").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    String value = js("return document.querySelector(arguments[0] + ' .progress')?.getAttribute('aria-valuenow') ?? null", row);
                    if (value == null) {
                        return false;
                    }
                    int percent = Integer.parseInt(value);
                    if (seen.isEmpty() || seen.getLast() != percent) {
                        seen.add(percent);
                        if (percent < 100) {
                            screenshot("console-hydrating.png");
                        }
                    }
                    return percent == 100;
                });
        System.out.println("ConsoleBrowserTest: the progress bar showed " + seen + " %");
        assertThat(seen).as("the bar never goes back").isSorted();
        assertThat(js("return document.querySelector(arguments[0]).dataset.state", row)).isEqualTo("hydrated");
        assertThat(js("return document.querySelector(arguments[0] + ' .progress .label').textContent", row)).isEqualTo("100 %");
        await("the records column shows every row").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> js("return document.querySelector(arguments[0]).textContent", row).contains(String.format(java.util.Locale.ENGLISH, "%,d", ROWS)));

        new Select(browser.findElement(By.id("lookup-index"))).selectByValue("events_by_id");
        WebElement key = browser.findElement(By.id("lookup-key"));
        key.sendKeys("4242, 77, " + ROWS);
        browser.findElement(By.id("run")).click();
        await("the lookup's rows are shown").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> !browser.findElements(By.id("result-table")).isEmpty());
        assertThat(tableCells(By.id("result-table"))).containsExactly(
                List.of("id", "account", "note"),
                List.of("77", "77", "n77"),
                List.of("4242", "242", "n4242"));
        assertThat(text(By.cssSelector("[data-field=path] .field-value"))).isEqualTo("fast");
        assertThat(text(By.cssSelector("[data-field=runtime] .field-value"))).isEqualTo("interactive");
        assertThat(text(By.cssSelector("[data-field=as_of] .field-value"))).matches("\\d+ \\(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\)");
        assertThat(text(By.cssSelector("[data-field=rows] .field-value"))).isEqualTo("2");
        screenshot("console-lookup.png");

        // A key the index's column cannot hold is refused, and the refusal is listed among the errors.
        key.clear();
        key.sendKeys("not-a-number");
        browser.findElement(By.id("run")).click();
        await("the refusal is listed").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> !browser.findElements(By.id("console-rejections-table")).isEmpty());
        int refused = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/indexes/events_by_id/rows?key=not-a-number")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
        assertThat(refused).isBetween(400, 499);
        assertThat(text(By.id("result-meta"))).startsWith(refused + " ");
        assertThat(text(By.id("console-rejections-table"))).contains("/v1/indexes/events_by_id/rows", Integer.toString(refused), "not-a-number");

        // Both charts draw (uPlot loads from its WebJar), the latency chart once two scrapes are apart.
        await("the charts draw").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> !browser.findElements(By.cssSelector("#lag-chart .uplot canvas")).isEmpty()
                        && !browser.findElements(By.cssSelector("#latency-chart .uplot canvas")).isEmpty()
                        && !browser.findElements(By.cssSelector("#latency-tiles [data-tile=p99]")).isEmpty());

        // The latency tiles' quantiles, estimated from histogram buckets, against values worked out by hand.
        String quantiles = asyncJs("""
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

        // SQL mode is offered exactly when the server answers POST /v1/sql with anything but 404/405.
        int sql = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/sql")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        boolean sqlExists = sql != 404 && sql != 405;
        await("SQL mode shown only if the server has SQL").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.findElement(By.cssSelector("[data-mode=sql]")).isDisplayed() == sqlExists);
        assertThat(sqlExists).as("this server has SQL").isTrue();

        // SQL through the console: a point query answered from the index, shown as a table.
        browser.findElement(By.cssSelector("[data-mode=sql]")).click();
        WebElement sqlText = browser.findElement(By.id("sql-text"));
        sqlText.clear();
        sqlText.sendKeys("SELECT id, note FROM events WHERE id = 77");
        browser.findElement(By.id("run")).click();
        await("the SQL answer is shown").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> !browser.findElements(By.id("result-table")).isEmpty()
                        && tableCells(By.id("result-table")).size() == 2 && tableCells(By.id("result-table")).get(0).contains("note"));
        assertThat(tableCells(By.id("result-table"))).containsExactly(List.of("id", "note"), List.of("77", "n77"));

        // Watch: the index's change stream, live in the page; a row written afterwards shows up in it.
        browser.findElement(By.cssSelector("[data-mode=lookup]")).click();
        new Select(browser.findElement(By.id("lookup-index"))).selectByValue("events_by_id");
        await("the watch button is offered").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.findElement(By.id("watch")).isDisplayed());
        browser.findElement(By.id("watch")).click();
        await("the watch table is shown").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> !browser.findElements(By.id("watch-table")).isEmpty());
        post(base + "/v1/tables/events/rows", "{\"insert\":[[" + (ROWS + 1) + ",1,\"watched\"]]}");
        await("the new row arrives in the watch table").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> text(By.id("watch-table")).contains("watched"));
        screenshot("console-watch.png");
        browser.findElement(By.id("watch")).click();
        screenshot("console.png");
    }

    private WebDriver startChromium() throws IOException {
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .withLogFile(new File("target/chromedriver.log"))
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + Files.createDirectories(dir.resolve("chromium")),
                "--window-size=1400,1250");
        return new ChromeDriver(service, options);
    }

    /** Runs {@code script} in the page and answers its result as text: the page redraws tables, so a read is one script. */
    private String js(String script, Object... args) {
        Object result = ((JavascriptExecutor) browser).executeScript(script, args);
        return result == null ? null : result.toString();
    }

    /** Runs the body of an async function in the page and answers what it returns, as text. */
    private String asyncJs(String body) {
        Object result = ((JavascriptExecutor) browser).executeAsyncScript(
                "const done = arguments[arguments.length - 1]; (async () => {" + body + "})().then(r => done(String(r)), e => done('error: ' + e));");
        return String.valueOf(result);
    }

    private String text(By by) {
        return browser.findElement(by).getText();
    }

    /** The header and body cells of a table, as text. */
    private List<List<String>> tableCells(By by) {
        List<List<String>> cells = new ArrayList<>();
        for (WebElement tr : browser.findElement(by).findElements(By.tagName("tr"))) {
            cells.add(tr.findElements(By.cssSelector("th, td")).stream().map(WebElement::getText).toList());
        }
        return cells;
    }

    private void screenshot(String name) throws IOException {
        Path png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.createDirectories(Path.of("target"));
        Files.copy(png, Path.of("target", name), StandardCopyOption.REPLACE_EXISTING);
    }

    private void post(String url, String json) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("POST %s: %s", url, r.body()).isBetween(200, 299);
    }
}
