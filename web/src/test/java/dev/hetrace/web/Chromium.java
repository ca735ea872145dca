package dev.hetrace.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.ctf.testing.Required;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium for the browser tests, driven through its chromedriver (Selenium
 * never looks for nor fetches a browser or driver of its own), and what the app drew, read from
 * its debug hook ({@code window.__hetrace.lastDraw}). Screenshots go to {@code target/screenshots}.
 * Public, in view's test jar, for the other modules' browser tests (the profile report's).
 */
public final class Chromium implements AutoCloseable {
    static final Path BINARY = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    static final Path SHOTS = Path.of("target", "screenshots");

    public final ChromeDriver driver;

    private Chromium(ChromeDriver driver) {
        this.driver = driver;
    }

    /** Debian's chromium and chromium-driver (CI installs them): see {@link Required#missing}. */
    public static void require() {
        if (!Files.isExecutable(BINARY) || !Files.isExecutable(DRIVER)) {
            String why = "the browser tests need Debian's chromium and chromium-driver (" + BINARY + ", " + DRIVER
                    + "): apt-get install chromium chromium-driver (.ci/run does)";
            Required.missing(why);
        }
    }

    /** A headless browser with a new profile in {@code profile}, the common flags and {@code extra}; the DevTools network log kept when asked. */
    public static Chromium start(Path profile, boolean networkLog, String... extra) throws Exception {
        System.setProperty("webdriver.chrome.driver", DRIVER.toString());
        System.setProperty("SE_AVOID_BROWSER_DOWNLOAD", "true");
        ChromeOptions o = new ChromeOptions();
        o.setBinary(BINARY.toFile());
        List<String> args = new ArrayList<>(List.of(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--user-data-dir=" + Files.createDirectories(profile),
                "--window-size=1600,1000",
                "--force-device-scale-factor=1"));
        args.addAll(List.of(extra));
        o.addArguments(args);
        if (networkLog) {
            o.setCapability("goog:loggingPrefs", Map.of("performance", "ALL"));
        }
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort()
                .build();
        Files.createDirectories(SHOTS);
        return new Chromium(new ChromeDriver(service, o));
    }

    /** Records the errors of every page opened from now on (script errors and unhandled rejections), for {@link #pageErrors}. */
    public void recordPageErrors() {
        driver.executeCdpCommand(
                "Page.addScriptToEvaluateOnNewDocument",
                Map.of(
                        "source",
                        "window.__errors = [];"
                                + " addEventListener('error', e => window.__errors.push(String(e.message)));"
                                + " addEventListener('unhandledrejection', e => window.__errors.push(String(e.reason)));"));
    }

    /** The errors the current page had, one per line ({@link #recordPageErrors}); empty if none. */
    public String pageErrors() {
        return (String) js("return window.__errors.join('\\n')");
    }

    public Object js(String script) {
        return ((JavascriptExecutor) driver).executeScript(script);
    }

    /** Waits until the app has drawn what it was last asked. */
    public void settle() {
        new WebDriverWait(driver, Duration.ofSeconds(30))
                .until(d -> js("return !!(window.__hetrace && window.__hetrace.settled())") == Boolean.TRUE);
    }

    /**
     * The rows, rectangles and arrows of the app's last frame, once it settled (the answer's typed
     * arrays it keeps, as lists).
     */
    public JsonNode lastDraw() throws Exception {
        settle();
        return new ObjectMapper().readTree((String) js("return JSON.stringify(window.__hetrace.lastDraw,"
                + " (k, v) => ArrayBuffer.isView(v) ? Array.from(v) : v)"));
    }

    public static JsonNode row(JsonNode draw, String name) {
        for (JsonNode r : draw.get("rows")) {
            if (r.get("name").asText().equals(name)) {
                return r;
            }
        }
        throw new AssertionError("no row " + name + " drawn");
    }

    public void shot(String name) throws Exception {
        File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Files.copy(f.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
