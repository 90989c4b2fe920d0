package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.JdbcInboxOperations;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxAdmin;
import dev.archlab.inbox.ui.OperatorUi;
import dev.archlab.inbox.ui.OperatorUiServer;
import dev.archlab.inbox.ui.OutcomeCounts;
import dev.archlab.inbox.ui.UiSettings;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * {@code inbox ui} driven in headless Chromium (Debian's {@code chromium} and {@code
 * chromium-driver}, both given by path so Selenium never downloads anything): the page shows
 * records in every state, a screenshot is taken, and retry-dead, release, search and a previewed
 * prune are clicked through their confirmations; the database is checked after each action, and so
 * is the page. Then the outcome chart the Spring Boot starter's page shows, from an outcome source
 * the test moves between refreshes, and the outbox panel of a database with an outbox table. One
 * browser for all of it. Every wait is on page state, with a minute's backstop.
 *
 * <p>Without the two packages the test is skipped, naming them, except under {@code CI=true}, where
 * it fails: CI must never pass it silently.
 */
class UiBrowserTest {

  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  /** Where the screenshot goes; the README's image is taken from here. */
  static final Path SCREENSHOT = Path.of("target", "ui-screenshots", "inbox-ui.png");

  @TempDir static Path dir;

  static UiFixture db;
  static RunningUi ui;
  static ChromeDriverService service;
  static WebDriver browser;
  static WebDriverWait wait;

  @BeforeAll
  static void start() throws Exception {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      String missing =
          "needs Debian's chromium and chromium-driver packages ("
              + CHROMIUM
              + ", "
              + CHROMEDRIVER
              + "): apt-get install -y chromium chromium-driver";
      if ("true".equals(System.getenv("CI"))) {
        fail("CI=true and the browser test cannot run: " + missing);
      }
      Assumptions.assumeTrue(false, missing);
    }
    DbOptions.environment = Map.of();
    db = UiFixture.seeded(dir, "browser");
    ui =
        RunningUi.start(
            db.dbOptions()[0],
            db.dbOptions()[1],
            db.dbOptions()[2],
            db.dbOptions()[3],
            "--port",
            "0");
    service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,1000",
        "--user-data-dir=" + Files.createDirectories(dir.resolve("chromium-profile")));
    browser = new ChromeDriver(service, options);
    wait = new WebDriverWait(browser, Duration.ofMinutes(1));
    wait.ignoring(StaleElementReferenceException.class);
  }

  @AfterAll
  static void stop() throws Exception {
    try (RunningUi running = ui) {
      if (browser != null) {
        browser.quit();
      }
      if (service != null) {
        service.stop();
      }
    } finally {
      DbOptions.environment = System.getenv();
    }
  }

  @Test
  void operatorSeesEveryStateAndRetriesReleasesFindsAndPrunes() throws Exception {
    browser.get(ui.uri().toString());

    // The overview: billing has 2 PROCESSING (one stuck), 2 DONE (one past retention), 1 DEAD.
    waitForCell("billing", "processing-count", "2");
    assertThat(cell("billing", "stuck-count")).isEqualTo("1");
    assertThat(cell("billing", "dead-count")).isEqualTo("1");
    assertThat(cell("billing", "done-count")).isEqualTo("2");
    assertThat(cell("billing", "past-retention-count")).isEqualTo("1");
    assertThat(cell("shipping", "dead-count")).isEqualTo("1");
    wait.until(d -> rowText("processing", "stuck-1").contains("expired"));
    assertThat(rowText("processing", "live-1")).contains("left");
    // No outbox table in this database: the command serves no outbox panel.
    wait.until(d -> refreshes() >= 1);
    assertThat(browser.findElement(By.id("outbox")).isDisplayed()).isFalse();
    assertThat(rowText("dead", "dead-1")).contains("card declined: 402");

    // The screenshot once the page has polled twice, so its chart has lines to show.
    wait.until(d -> d.findElements(By.cssSelector("#chart polyline")).size() == 4);
    Files.createDirectories(SCREENSHOT.getParent());
    byte[] png = ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES);
    assertThat(png).startsWith(0x89, 'P', 'N', 'G');
    Files.write(SCREENSHOT, png);

    // Retry-dead one record: confirmed, then gone from the table and from the database.
    click("#dead tr[data-id='dead-1'] button.retry");
    acceptConfirmation();
    waitForMessage("DEAD record billing/dead-1 is retryable again");
    assertThat(db.find("billing", "dead-1")).isEmpty();
    waitForCell("billing", "dead-count", "0");
    assertThat(browser.findElements(By.cssSelector("#dead tr[data-id='dead-1']"))).isEmpty();

    // Release the live lease: the database's lease ends now, and the page shows it expired.
    click("#processing tr[data-id='live-1'] button.release");
    acceptConfirmation();
    waitForMessage("released billing/live-1");
    InboxRecord released = db.find("billing", "live-1").orElseThrow();
    assertThat(released.state()).isEqualTo(RecordState.PROCESSING);
    assertThat(released.leaseUntil()).isBeforeOrEqualTo(db.store.currentTime());
    waitForCell("billing", "stuck-count", "2");
    wait.until(d -> rowText("processing", "live-1").contains("expired"));

    // Retry every DEAD record of a consumer.
    click("#consumers tr[data-consumer='shipping'] button.retry-all");
    acceptConfirmation();
    waitForMessage("1 DEAD record(s) of shipping are retryable again");
    assertThat(db.find("shipping", "dead-2")).isEmpty();

    // Search by message id: found, and a clear answer for an unknown one.
    search("done-old");
    wait.until(d -> text("#search-result").contains("billing / done-old: DONE"));
    search("no-such-id");
    wait.until(d -> text("#search-result").contains("no record with message id 'no-such-id'"));

    // Prune with a dry-run preview first: one DONE record is past a week.
    WebElement olderThan = browser.findElement(By.id("prune-older-than"));
    olderThan.clear();
    olderThan.sendKeys("7d");
    browser.findElement(By.id("prune-preview")).click();
    wait.until(d -> text("#prune-preview-result").contains("would delete 1 DONE record(s)"));
    assertThat(db.find("billing", "done-old")).isPresent();
    click("#prune-run");
    acceptConfirmation();
    waitForMessage("deleted 1 DONE record(s)");
    assertThat(db.find("billing", "done-old")).isEmpty();
    assertThat(db.find("billing", "done-1")).isPresent();
    waitForCell("billing", "past-retention-count", "0");

    // The retried DEAD record is claimable afresh: its next delivery is attempt 1.
    assertThat(db.claim("billing", "dead-1", Duration.ofMinutes(1)).fencingToken()).isEqualTo(1);
    assertThat(ui.err())
        .contains("POST /api/retry-dead DEAD record billing/dead-1 is retryable again")
        .contains("POST /api/release released billing/live-1")
        .contains("POST /api/prune deleted 1 DONE record(s)");
    List<String> logLines = ui.err().lines().filter(l -> l.startsWith("inbox ui: ")).toList();
    assertThat(logLines).hasSize(4);
  }

  @Test
  void theOutboxPanelShowsTheBacklogAndPutsADeadRowBack() throws Exception {
    UiFixture withOutbox = UiFixture.seeded(dir, "browser-outbox");
    Outbox outbox = withOutbox.withOutbox();
    String[] options = withOutbox.dbOptions();
    try (RunningUi server =
        RunningUi.start(options[0], options[1], options[2], options[3], "--port", "0")) {
      browser.get(server.uri().toString());
      wait.until(d -> "1".equals(text("#outbox-counts td.outbox-dead")));
      assertThat(browser.findElement(By.id("outbox")).isDisplayed()).isTrue();
      assertThat(text("#outbox-table")).isEqualTo("(table inbox_outbox)");
      assertThat(text("#outbox-counts td.outbox-pending")).isEqualTo("1");
      assertThat(text("#outbox-counts td.outbox-sent")).isEqualTo("1");
      assertThat(text("#outbox-counts td.outbox-oldest")).matches("\\d+[smhd].*");
      assertThat(rowText("outbox-dead-rows", "pay-2"))
          .contains("nowhere", "customer-7", "unknown topic 'nowhere'");
      assertThat(rowText("outbox-pending-rows", "pay-3")).contains("payments");
      Files.createDirectories(SCREENSHOT.getParent());
      Files.write(
          SCREENSHOT.resolveSibling("inbox-ui-outbox.png"),
          ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES));

      click("#outbox-dead-rows tr[data-id='pay-2'] button.outbox-retry");
      acceptConfirmation();
      waitForMessage("DEAD outbox row pay-2 is PENDING again");
      assertThat(outbox.admin().counts()).isEqualTo(new OutboxAdmin.Counts(2, 1, 0));
      wait.until(d -> "0".equals(text("#outbox-counts td.outbox-dead")));
      wait.until(d -> rowText("outbox-pending-rows", "pay-2").contains("unknown topic"));
      assertThat(browser.findElements(By.cssSelector("#outbox-dead-rows tbody tr"))).isEmpty();
      assertThat(server.err())
          .contains("POST /api/outbox/retry-dead DEAD outbox row pay-2 is PENDING again");
    }
  }

  @Test
  void theChartPlotsDeliveriesPerRefreshFromAnOutcomeSource() throws Exception {
    // The page as the Spring Boot starter serves it: with an outcome source, here one whose
    // cumulative totals the test moves by hand between the page's refreshes.
    AtomicLong applied = new AtomicLong();
    AtomicLong dead = new AtomicLong();
    OutcomeCounts counts =
        () -> Map.of("orders", Map.of("applied", applied.get(), "dead", dead.get()));
    try (OperatorUiServer server =
        OperatorUiServer.start(
            new OperatorUi(
                new JdbcInboxOperations(db.store), UiSettings.ofDefaults(), Optional.of(counts)),
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      browser.get(server.uri().toString());
      wait.until(d -> "outcomes".equals(bodyData("chart")));
      assertThat(text("#chart-title")).isEqualTo("Outcomes over time");
      assertThat(text("#chart-legend")).contains("applied").contains("dead");

      // One interval gets 6 applied and 2 dead (each total moves in one step): on a scale whose
      // top is the largest rate, 6, that is the top (y 5.0) and a third of the way up (y 78.3).
      int before = refreshes();
      applied.addAndGet(6);
      dead.addAndGet(2);
      wait.until(d -> refreshes() >= before + 3);
      assertThat(yValues("o-applied")).contains(5.0).allMatch(y -> y == 5.0 || y == 115.0);
      assertThat(yValues("o-dead")).contains(78.3).allMatch(y -> y == 78.3 || y == 115.0);

      // The application restarted: its totals start again from zero, which must not plot as a
      // negative rate (below the axis, y > 115).
      applied.set(1);
      dead.set(0);
      int restarted = refreshes();
      wait.until(d -> refreshes() >= restarted + 2);
      assertThat(yValues("o-applied")).isNotEmpty().allMatch(y -> y >= 5.0 && y <= 115.0);
      assertThat(yValues("o-dead")).isNotEmpty().allMatch(y -> y >= 5.0 && y <= 115.0);
    }
  }

  private static String bodyData(String key) {
    return browser.findElement(By.tagName("body")).getDomAttribute("data-" + key);
  }

  private static int refreshes() {
    String n = bodyData("refreshed");
    return n == null ? 0 : Integer.parseInt(n);
  }

  /** The y coordinates of the chart's line of one outcome (SVG: 5 is the top, 115 the axis). */
  private static List<Double> yValues(String lineClass) {
    List<WebElement> lines = browser.findElements(By.cssSelector("#chart polyline." + lineClass));
    if (lines.isEmpty()) {
      return List.of();
    }
    return Arrays.stream(lines.get(0).getDomAttribute("points").trim().split("\\s+"))
        .map(point -> Double.parseDouble(point.substring(point.indexOf(',') + 1)))
        .toList();
  }

  private static void search(String id) {
    WebElement input = browser.findElement(By.id("search-id"));
    input.clear();
    input.sendKeys(id);
    browser.findElement(By.cssSelector("#search-form button[type=submit]")).click();
  }

  /** Clicks the element, finding it again if a refresh replaced it in between. */
  private static void click(String css) {
    wait.until(
        d -> {
          d.findElement(By.cssSelector(css)).click();
          return true;
        });
  }

  private static void acceptConfirmation() {
    wait.until(ExpectedConditions.alertIsPresent()).accept();
  }

  private static void waitForMessage(String text) {
    wait.until(
        d -> {
          String error = text("#error");
          if (!error.isEmpty()) {
            throw new AssertionError("the page reported: " + error);
          }
          return text("#message").contains(text);
        });
  }

  private static void waitForCell(String consumer, String column, String value) {
    wait.until(d -> value.equals(cell(consumer, column)));
  }

  private static String cell(String consumer, String column) {
    return text("#consumers tr[data-consumer='" + consumer + "'] td." + column);
  }

  private static String rowText(String table, String id) {
    return text("#" + table + " tr[data-id='" + id + "']");
  }

  private static String text(String css) {
    List<WebElement> found = browser.findElements(By.cssSelector(css));
    return found.isEmpty() ? "" : found.get(0).getText();
  }
}
