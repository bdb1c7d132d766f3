"""Headless Chromium driven by Selenium, and the replayed reports it opens.

The browser is Debian's ``chromium`` with its ``chromedriver`` (``apt-get install
chromium chromium-driver``), found on PATH; nothing is downloaded. Where either (or
Selenium) is missing the tests skip with the reason, except with
NSIGHTFLOW_REQUIRE_BROWSER=1 (CI), where that is a failure. Screenshots go to the
folder NSIGHTFLOW_SCREENSHOTS names (default results/screenshots) for a person to
look at.
"""

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_run import replay_in

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ("jacobi2d", "sgemm")  # the replay of two families is enough
BROWSERS = ("chromium", "chromium-browser")
INSTALL = "apt-get install chromium chromium-driver; pip install selenium"


def _missing() -> str:
    """Why the browser cannot run here ('' when it can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return f"selenium is not installed ({INSTALL})"
    if not any(shutil.which(b) for b in BROWSERS):
        return f"no chromium on PATH ({INSTALL})"
    if not shutil.which("chromedriver"):
        return f"no chromedriver on PATH ({INSTALL})"
    return ""


@pytest.fixture(scope="session")
def browser_available() -> None:
    """Skips (fails under NSIGHTFLOW_REQUIRE_BROWSER=1) where the browser is missing."""
    why = _missing()
    if why:
        if os.environ.get("NSIGHTFLOW_REQUIRE_BROWSER") == "1":
            pytest.fail(f"NSIGHTFLOW_REQUIRE_BROWSER=1, but {why}")
        pytest.skip(why)


@pytest.fixture(scope="session")
def chrome(browser_available: None) -> Iterator[Any]:
    """A headless Chromium that logs the console and the network."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = next(shutil.which(b) for b in BROWSERS if shutil.which(b))
    for arg in (
        "--headless=new",
        "--no-sandbox",  # root in a container
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--hide-scrollbars",
        "--window-size=1280,900",
        "--force-device-scale-factor=1",
    ):
        options.add_argument(arg)
    options.set_capability(
        "goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"}
    )
    driver = webdriver.Chrome(
        options=options, service=Service(executable_path=shutil.which("chromedriver"))
    )
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The folder screenshots are kept in (NSIGHTFLOW_SCREENSHOTS)."""
    folder = Path(
        os.environ.get("NSIGHTFLOW_SCREENSHOTS", ROOT / "results/screenshots")
    )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def replayed(browser_available: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``results/report`` of a replay run of two families, built once per session."""
    work = tmp_path_factory.mktemp("replay")
    config = ("--config", f"families=[{','.join(FAMILIES)}]")
    # the pages only: the PDFs (xhtml2pdf) are not opened here
    return replay_in(work, "--omit-from", "render_pdf", *config)
