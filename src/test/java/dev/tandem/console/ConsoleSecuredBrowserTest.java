package dev.tandem.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.security.TokenHash;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The web console against a server that asks for credentials, in headless Chromium ({@link ConsoleBrowser}):
 * the page and its assets load without a token, but the console says readably that it needs one; a token
 * pasted in the header is sent as {@code Authorization: Bearer} with every request, the change stream
 * included (read with fetch, since EventSource cannot send it), and kept in the tab's sessionStorage across
 * a reload; what the token's role does not allow is refused with the server's reason shown.
 */
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "server.address=127.0.0.1", "tandem.storage.fsync=false",
        "tandem.compute.maintenance-workers=1", "tandem.compute.interactive-workers=1"})
class ConsoleSecuredBrowserTest {

    static final SecureRandom RANDOM = new SecureRandom();
    static final String READER = TokenHash.newSecret(RANDOM);
    static final String ADMIN = TokenHash.newSecret(RANDOM);

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void tokens(DynamicPropertyRegistry registry) {
        registry.add("tandem.storage.data-dir", () -> dir.resolve("data").toString());
        registry.add("tandem.security.tokens[0].name", () -> "console-reader");
        registry.add("tandem.security.tokens[0].hash", () -> TokenHash.hash(READER, RANDOM));
        registry.add("tandem.security.tokens[0].roles", () -> "reader");
        registry.add("tandem.security.tokens[1].name", () -> "console-admin");
        registry.add("tandem.security.tokens[1].hash", () -> TokenHash.hash(ADMIN, RANDOM));
        registry.add("tandem.security.tokens[1].roles", () -> "admin,writer,reader");
        // The page polls with whatever token it holds; its wrong-token requests from loopback would otherwise owe the
        // login throttle seconds before the right token is checked (the throttle has tests of its own).
        registry.add("tandem.security.login-delay.base", () -> "0");
    }

    @BeforeAll
    static void chromiumIsInstalled() {
        ConsoleBrowser.requireChromium("ConsoleSecuredBrowserTest");
    }

    @Value("${local.server.port}")
    int port;

    @org.springframework.beans.factory.annotation.Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    /** Refused authentications counted so far, over every surface and reason. */
    private double authFailures() {
        return meters.find("tandem.auth.failures").counters().stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }

    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    ConsoleBrowser browser;

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    @Test
    void worksWithATokenAndSaysWhenItNeedsOne() throws Exception {
        String base = "http://127.0.0.1:" + port;
        post(base + "/v1/tables", """
                {"name":"orders","columns":[{"name":"id","type":"int64","nullable":false},{"name":"amount","type":"int64"}]}""");
        post(base + "/v1/tables/orders/rows", "{\"insert\":[[1,100],[2,250],[3,75]]}");

        browser = new ConsoleBrowser(dir.resolve("chromium"), "console-secured");
        WebDriver page = browser.driver;
        page.get(base + "/");
        assertThat(page.getTitle()).as("the page itself is public").isEqualTo("Tandem console");
        await("the console says it needs a token").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.text(By.id("status")).contains("401"));
        assertThat(browser.text(By.id("status"))).contains("not updating", "paste one above");

        WebElement token = page.findElement(By.id("token"));
        token.sendKeys("not-a-token", Keys.TAB);
        await("the console says the token was refused").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.text(By.id("status")).contains("the token was not accepted"));
        // a refused token is not tried again until it changes (each refusal would make the address's next login wait longer)
        double refusedSoFar = authFailures();
        Thread.sleep(3_500); // three of the page's refresh intervals (1 s)
        assertThat(authFailures()).as("no request with the refused token after the first refresh").isEqualTo(refusedSoFar);

        // A reader's token: the catalog and introspection, but no new index.
        setToken(READER);
        await("the console is live with the reader's token").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.text(By.id("status")).startsWith("live"));
        assertThat(browser.tableCells("#tables table")).anySatisfy(row -> assertThat(row)
                .startsWith("orders", "u1", "id int64 not null, amount int64", "3"));
        browser.createIndex("orders_by_id", "orders", "id");
        await("the refusal is shown by the form").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.text(By.cssSelector("#create-index .form-result")).startsWith("403"));
        assertThat(browser.text(By.id("console-rejections-table"))).contains("POST", "/v1/indexes", "403");

        // An admin's token: the index is created and hydrates; a lookup and a watch work with it.
        setToken(ADMIN);
        browser.createIndex("orders_by_id", "orders", "id");
        browser.awaitHydrated("orders_by_id", "console-secured-hydrating.png");
        new Select(page.findElement(By.id("lookup-index"))).selectByValue("orders_by_id");
        WebElement key = page.findElement(By.id("lookup-key"));
        key.sendKeys("2");
        page.findElement(By.id("run")).click();
        await("the lookup's rows are shown").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.present(By.id("result-table")));
        assertThat(browser.tableCells("#result-table")).containsExactly(List.of("id", "amount"), List.of("2", "250"));

        key.clear();
        key.sendKeys("2, 4");
        await("the watch button is offered").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> page.findElement(By.id("watch")).isDisplayed());
        page.findElement(By.id("watch")).click();
        await("the watched rows are shown").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.present(By.cssSelector("#watch-table tbody tr")));
        post(base + "/v1/tables/orders/rows", "{\"insert\":[[4,20]]}");
        await("a row written afterwards arrives through the authenticated stream").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> browser.tableCells("#watch-table").equals(List.of(List.of("id", "amount"), List.of("2", "250"), List.of("4", "20"))));
        browser.screenshot("console-secured.png");

        // The token lasts as long as the tab: a reload keeps it, and the console is live again at once.
        page.navigate().refresh();
        await("live again after a reload").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.text(By.id("status")).startsWith("live"));
        assertThat(page.findElement(By.id("token")).getDomProperty("value")).isEqualTo(ADMIN);

        List<String> refused = browser.assertNoConsoleErrors(message -> message.contains("status of 401")
                || (message.contains("/v1/indexes ") && message.contains("status of 403")));
        assertThat(refused).as("the refusals, logged by the browser").isNotEmpty();
    }

    private void setToken(String secret) {
        WebElement token = browser.driver.findElement(By.id("token"));
        token.clear();
        token.sendKeys(secret, Keys.TAB);
    }

    private void post(String url, String json) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + ADMIN)
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("POST %s: %s", url, r.body()).isBetween(200, 299);
    }
}
