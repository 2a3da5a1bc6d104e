package dev.tandem.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.logging.Level;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.Select;

/**
 * Headless Chromium driving the console, for the console's browser tests: Debian's {@code chromium} and
 * {@code chromium-driver} (which {@code .ci/run} installs; {@code CHROMIUM_BINARY} and {@code CHROMEDRIVER_BINARY}
 * override the paths), launched with exactly the flags of issue 19 and a fresh profile ({@code --user-data-dir}),
 * its window sized through WebDriver, its console log kept.
 */
final class ConsoleBrowser implements AutoCloseable {

    static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM_BINARY", "/usr/bin/chromium"));
    static final Path CHROMEDRIVER = Path.of(System.getenv().getOrDefault("CHROMEDRIVER_BINARY", "/usr/bin/chromedriver"));

    /**
     * Skips the calling test class loudly when Chromium or chromedriver is missing; on CI ({@code CI=true})
     * fails it instead, so the console is never left untested there.
     */
    static void requireChromium(String test) {
        if (Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER)) {
            return;
        }
        String why = CHROMIUM + " or " + CHROMEDRIVER + " is missing: install the Debian packages 'chromium' and"
                + " 'chromium-driver' (.ci/run does) or set CHROMIUM_BINARY and CHROMEDRIVER_BINARY to drive the console";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail(why);
        }
        System.err.println();
        System.err.println("!".repeat(100));
        System.err.println("!!! SKIPPED " + test + ": the web console was NOT tested in a browser.");
        System.err.println("!!! " + why);
        System.err.println("!".repeat(100));
        System.err.println();
        Assumptions.abort(why);
    }

    final WebDriver driver;

    /** Starts Chromium with a fresh profile in {@code profile}; chromedriver logs to {@code target/<name>-chromedriver.log}. */
    ConsoleBrowser(Path profile, String name) throws IOException {
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .withLogFile(new File("target/" + name + "-chromedriver.log"))
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + Files.createDirectories(profile));
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        driver = new ChromeDriver(service, options);
        driver.manage().window().setSize(new Dimension(1400, 1250));
    }

    /** Runs {@code script} in the page and answers its result as text: the page redraws tables, so a read is one script. */
    String js(String script, Object... args) {
        Object result = ((JavascriptExecutor) driver).executeScript(script, args);
        return result == null ? null : result.toString();
    }

    /** Runs the body of an async function in the page and answers what it returns, as text. */
    String asyncJs(String body) {
        Object result = ((JavascriptExecutor) driver).executeAsyncScript(
                "const done = arguments[arguments.length - 1]; (async () => {" + body + "})().then(r => done(String(r)), e => done('error: ' + e));");
        return String.valueOf(result);
    }

    String text(By by) {
        return driver.findElement(by).getText();
    }

    boolean present(By by) {
        return !driver.findElements(by).isEmpty();
    }

    /** The header and body cells of the table {@code selector} names, as text, read in one script (none if there is no such table). */
    @SuppressWarnings("unchecked")
    List<List<String>> tableCells(String selector) {
        Object cells = ((JavascriptExecutor) driver).executeScript("""
                return [...document.querySelectorAll(arguments[0] + ' tr')].map(tr => [...tr.querySelectorAll('th, td')].map(c => c.innerText.trim()));
                """, selector);
        return (List<List<String>>) cells;
    }

    /**
     * Waits until the hydration bar of {@code index} shows 100 %, taking a screenshot named {@code screenshot}
     * each time it shows a new value below 100; answers the values it showed, in order.
     */
    List<Integer> awaitHydrated(String index, String screenshot) {
        String row = "tr[data-index='" + index + "']";
        List<Integer> seen = new ArrayList<>();
        await("the progress bar of " + index + " reaches 100 % (seen: " + seen + ")").atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    String value = js("return document.querySelector(arguments[0] + ' .progress')?.getAttribute('aria-valuenow') ?? null", row);
                    if (value == null) {
                        return false;
                    }
                    int percent = Integer.parseInt(value);
                    if (seen.isEmpty() || seen.getLast() != percent) {
                        seen.add(percent);
                        if (percent < 100) {
                            screenshot(screenshot);
                        }
                    }
                    return percent == 100;
                });
        assertThat(seen).as("the bar of %s never goes back", index).isSorted();
        assertThat(js("return document.querySelector(arguments[0]).dataset.state", row)).isEqualTo("hydrated");
        assertThat(js("return document.querySelector(arguments[0] + ' .progress .label').textContent", row)).isEqualTo("100 %");
        return seen;
    }

    /** Fills in and submits the console's form that creates an index. */
    void createIndex(String name, String on, String key) {
        WebElement form = driver.findElement(By.id("create-index"));
        WebElement nameInput = form.findElement(By.name("name"));
        WebElement keyInput = form.findElement(By.name("key"));
        nameInput.clear();
        nameInput.sendKeys(name);
        new Select(form.findElement(By.name("on"))).selectByValue(on);
        keyInput.clear();
        keyInput.sendKeys(key);
        form.findElement(By.cssSelector("button[type=submit]")).click();
    }

    /** Saves what the page shows as {@code target/<name>}. */
    void screenshot(String name) throws IOException {
        Path png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE).toPath();
        Files.createDirectories(Path.of("target"));
        Files.copy(png, Path.of("target", name), StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Asserts the page logged no error since the last call but the failed loads of refusals the test asked
     * for ({@code expected} matches their log messages, which name the URL and status): no uncaught
     * exception, no rejected promise, no asset that failed to load. Answers the expected ones it saw, so a
     * test can show the log was really read.
     */
    List<String> assertNoConsoleErrors(Predicate<String> expected) {
        List<String> severe = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::getMessage)
                .toList();
        assertThat(severe.stream().filter(expected.negate()).toList()).as("errors in the browser's console log").isEmpty();
        return severe;
    }

    @Override
    public void close() {
        driver.quit();
    }
}
