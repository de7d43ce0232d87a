"""Screenshots of the reader's site with headless Chromium: ``screenshot-index.png`` and ``screenshot-claim.png``.

:func:`take_screenshots` opens ``DIR/index.html`` from the file system in headless Chromium (through selenium's
WebDriver binding and chromedriver), saves a picture of it, follows the first finding's link (or, with no finding,
takes the first claim page) and saves a picture of that page. :func:`find_browser` says whether a browser and its
driver are installed; on Debian they are the packages ``chromium`` and ``chromium-driver``, and selenium is in the
``test`` extra. :func:`headless_driver` starts the same browser for the site's browser test.
"""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

__all__ = ["find_browser", "headless_driver", "take_screenshots", "MISSING_BROWSER"]

MISSING_BROWSER = ("headless Chromium is not available: install the Debian packages chromium and chromium-driver "
                   "(apt-get install chromium chromium-driver) and the Python package selenium (pip install selenium)")

_BINARIES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_OPTIONS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage")


def find_browser() -> tuple[str, str] | None:
    """(Chromium binary, chromedriver) when both are installed, else None. /usr/bin/chromium is preferred; the
    driver comes from PATH or /usr/bin/chromedriver. Whether selenium is importable is not checked here."""
    binary = "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None
    for name in _BINARIES:
        if binary:
            break
        binary = shutil.which(name)
    driver = shutil.which("chromedriver")
    if driver is None and Path("/usr/bin/chromedriver").is_file():
        driver = "/usr/bin/chromedriver"
    if not binary or not driver:
        return None
    return binary, driver


@contextmanager
def headless_driver(*, width: int = 1400, height: int = 2000, console_log: bool = False):
    """A headless Chromium WebDriver (a context manager; the browser quits on exit). ``console_log``: record the
    page's console so that ``driver.get_log('browser')`` returns it. RuntimeError when no browser is installed or
    it does not start."""
    found = find_browser()
    if found is None:
        raise RuntimeError(MISSING_BROWSER)
    try:
        from selenium import webdriver
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise RuntimeError(MISSING_BROWSER) from None
    binary, driver_path = found
    profile = tempfile.mkdtemp(prefix="rgr-verify-chromium-")  # one profile per browser: parallel runs coexist
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in _OPTIONS:
        options.add_argument(arg)
    options.add_argument(f"--window-size={int(width)},{int(height)}")
    options.add_argument(f"--user-data-dir={profile}")
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        try:
            driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
        except WebDriverException as exc:
            first = (exc.msg or str(exc)).strip().splitlines()
            raise RuntimeError(f"headless Chromium ({binary}, {driver_path}) did not start: "
                               f"{first[0] if first else type(exc).__name__}") from None
        try:
            driver.set_window_size(int(width), int(height))
            yield driver
        finally:
            driver.quit()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def take_screenshots(site_dir: Path, out_dir: Path | None = None, *, width: int = 1400,
                     height: int = 2000) -> list[Path]:
    """Save ``screenshot-index.png`` (the index) and ``screenshot-claim.png`` (the first finding's claim page,
    else the first claim page) of the site in ``site_dir`` into ``out_dir`` (default ``site_dir``); return the two
    paths. RuntimeError when the site has no index.html or no claim page, or no browser is installed."""
    site_dir = Path(site_dir).resolve()
    out_dir = Path(out_dir) if out_dir is not None else site_dir
    index = site_dir / "index.html"
    if not index.is_file():
        raise RuntimeError(f"{index} does not exist: write the site first")
    out_dir.mkdir(parents=True, exist_ok=True)
    shots = [out_dir / "screenshot-index.png", out_dir / "screenshot-claim.png"]
    with headless_driver(width=width, height=height) as driver:
        from selenium.webdriver.common.by import By

        driver.get(index.as_uri())
        driver.save_screenshot(str(shots[0]))
        claim = None
        links = driver.find_elements(By.CSS_SELECTOR, "li.finding a[href]")
        if links:
            href = (links[0].get_attribute("href") or "").split("#")[0]
            if href.startswith("file://"):
                claim = href
        if claim is None:
            pages = sorted((site_dir / "claims").glob("*.html"))
            if not pages:
                raise RuntimeError(f"{site_dir} has no claim page (claims/*.html)")
            claim = pages[0].as_uri()
        driver.get(claim)
        driver.save_screenshot(str(shots[1]))
    for shot in shots:
        if not shot.is_file():
            raise RuntimeError(f"headless Chromium did not write {shot}")
    return shots
