"""What the console's browser tests share: a server with an operator, pages checked with
axe-core, and screenshots of every page at 1280×800 and 390×844, and of the whole
page where it is longer (test artifacts, under
Tests/browser/artifacts/console/ or $CUMULUS_ARTIFACTS_DIR)."""

import importlib.util
import json
import os
import re
import subprocess
import time
from pathlib import Path

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
OPERATOR = "admin"
PASSWORD = "correct horse battery"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def artifacts_dir():
    path = Path(os.environ.get("CUMULUS_ARTIFACTS_DIR", ROOT / "Tests/browser/artifacts")) / "console"
    path.mkdir(parents=True, exist_ok=True)
    return path


def axe_source():
    """axe-core as the PyPI package axe-playwright-python ships it."""
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("pip install axe-playwright-python (Tests/browser/requirements.txt)")
    return (Path(list(spec.submodule_search_locations)[0]) / "axe.min.js").read_text()


class ConsoleServer:
    """`cumulus serve` over a fresh data directory with the demo container and one operator."""

    def __init__(self, binaries, data_dir):
        self.binary = str(binaries / "cumulus")
        self.data_dir = data_dir
        self.cli("operators", "add", OPERATOR, input=PASSWORD + "\n")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir,
             "--templates-dir", str(ROOT / "Templates"), "--public-dir", str(ROOT / "Public"), "--no-access-log",
             "--event-loops", "1", "--workers", "4"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.url = None
        self.demo_token = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.url is None:
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                break
            token = re.search(r"Its API token \(development\): ([0-9a-f]{64})", line)
            if token:
                self.demo_token = token.group(1)
            match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
            if match:
                self.url = match.group(1)
        if self.url is None:
            self.stop()
            raise RuntimeError("cumulus serve did not start")

    def cli(self, *arguments, input=None):
        return subprocess.run([self.binary, *arguments, "--data-dir", self.data_dir], input=input, capture_output=True, text=True,
                              check=True).stdout

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)


class Pages:
    """Drives the console and checks every page it lands on."""

    def __init__(self, driver, server):
        self.driver = driver
        self.server = server
        self.axe = axe_source()
        self.seen = []

    def open(self, path):
        self.driver.get(self.server.url + path)

    def find(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def text(self):
        return self.driver.find_element(By.TAG_NAME, "body").text

    def wait_for_text(self, text, timeout=15):
        """Waits until the page shows `text`. A page replaced while it is read (a click's
        navigation under way) is read again rather than failing the test."""
        WebDriverWait(self.driver, timeout, ignored_exceptions=(StaleElementReferenceException, WebDriverException)).until(
            lambda d: text in d.find_element(By.TAG_NAME, "body").text)

    def emulate(self, width, height, mobile):
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})

    def submit(self, selector):
        """Clicks a submit button and waits for the next page."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.find(selector).click()
        WebDriverWait(self.driver, 15).until(lambda d: old != d.find_element(By.TAG_NAME, "html"))

    def check(self, name):
        """axe-core on the page (no serious or critical violation), then screenshots at both sizes."""
        self.driver.execute_script(self.axe)
        result = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']}).then(r => done(JSON.stringify(r.violations)))"
            ".catch(e => done(JSON.stringify([{impact: 'critical', id: 'axe-failed', help: String(e), nodes: []}])));")
        violations = [v for v in json.loads(result) if v.get("impact") in ("serious", "critical")]
        assert not violations, f"{name}: " + "; ".join(
            f"{v['id']} ({v['impact']}): {v['help']} at {[n.get('target') for n in v.get('nodes', [])][:3]}" for v in violations)
        number = len(self.seen) + 1
        for label, (width, height) in SIZES.items():
            # The viewport itself is set to the size, so the page is laid out exactly as on such a screen.
            self.emulate(width, height, mobile=label == "phone")
            overflow = self.driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, f"{name} is {overflow}px wider than a {width}px screen"
            self.driver.save_screenshot(str(artifacts_dir() / f"{number:02d}-{name}-{label}.png"))
            # And the whole page, for what lies below the fold.
            full = self.driver.execute_script("return document.documentElement.scrollHeight")
            if full > height:
                self.emulate(width, full, mobile=label == "phone")
                self.driver.save_screenshot(str(artifacts_dir() / f"{number:02d}-{name}-{label}-full.png"))
        self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        self.seen.append(name)
