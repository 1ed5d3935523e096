"""One Chromium per test module, shared by the browser tests (Debian's, through Playwright)."""

import os

import pytest

from tests.conftest import unavailable

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def chromium():
    """Skipped on a laptop without Chromium, failed in CI (``unavailable``). Each test opens its
    own page (a fresh context: no cookies shared) and closes it."""
    if not os.path.exists(CHROMIUM):
        unavailable("Chromium is not installed (apt-get install chromium)")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # live_server and Playwright sync share the process
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()
