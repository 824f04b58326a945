"""Debian's Chromium, driven by Playwright: how the dashboard's browser checks, the real-CLI test and
the bench launch it and sign in."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.e2e.local_stack import LocalStackProcess

CHROMIUM = shutil.which("chromium") or next(
    (p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(p)), None
)
# As root in a container with no network but loopback: no sandbox, and nothing that phones home.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched browser (playwright imported here: a module using this imports without it)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def sign_in(page: Any, stack: LocalStackProcess, hash_route: str = "") -> None:
    page.goto(f"{stack.url}/dashboard{hash_route}")
    page.fill("#token", stack.token)
    page.click("button[type=submit]")
