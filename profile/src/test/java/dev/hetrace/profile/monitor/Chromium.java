package dev.hetrace.profile.monitor;

import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium driven through its chromedriver, as the view module's browser tests
 * do (a copy of their fixture's core: test classes are not shared between modules). Selenium never
 * looks for nor fetches a browser or driver of its own. Screenshots go to {@code target/screenshots}.
 */
final class Chromium implements AutoCloseable {
	static final Path BINARY = Path.of("/usr/bin/chromium");
	static final Path DRIVER = Path.of("/usr/bin/chromedriver");
	static final Path SHOTS = Path.of("target", "screenshots");

	final ChromeDriver driver;

	private Chromium(ChromeDriver driver) {
		this.driver = driver;
	}

	/** Fails in CI without Debian's chromium and chromium-driver (CI installs them); skips elsewhere, saying how to install them. */
	static void require() {
		if (!Files.isExecutable(BINARY) || !Files.isExecutable(DRIVER)) {
			String why = "the browser tests need Debian's chromium and chromium-driver (" + BINARY + ", " + DRIVER
					+ "): apt-get install chromium chromium-driver (.ci/run does)";
			if (System.getenv("CI") != null) {
				fail(why);
			}
			Assumptions.abort(why);
		}
	}

	static Chromium start(Path profile) throws Exception {
		System.setProperty("webdriver.chrome.driver", DRIVER.toString());
		System.setProperty("SE_AVOID_BROWSER_DOWNLOAD", "true");
		ChromeOptions o = new ChromeOptions();
		o.setBinary(BINARY.toFile());
		o.addArguments(List.of("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
				"--user-data-dir=" + Files.createDirectories(profile), "--window-size=1400,900",
				"--force-device-scale-factor=1"));
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
				.usingAnyFreePort().build();
		Files.createDirectories(SHOTS);
		return new Chromium(new ChromeDriver(service, o));
	}

	Object js(String script) {
		return ((JavascriptExecutor) driver).executeScript(script);
	}

	void shot(String name) throws Exception {
		File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
		Files.copy(f.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
	}

	@Override
	public void close() {
		driver.quit();
	}
}
