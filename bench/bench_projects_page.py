"""The projects page's figures, on a local stack of its own (``python -m infra.local``) in Debian's
Chromium (issue 23, part 4).

- dashboard_projects_first_render_ms_200: from navigation to the projects page's first 50 rows (its
  page) shown, with 200 projects stored through the hook API (a session each, on one of three named
  machines); median of 5 fresh tabs, signed in, after one load that starts the function's worker
  (reported as ``…_cold_ms_200``).
- dashboard_requests_projects_page: the /api requests the page makes to render (one a page).

Skipped (no figures) without chromium or playwright.
"""

from __future__ import annotations

import statistics
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.bench_dashboard import page_requests, seeding_stack, signed_in

PROJECTS = 200
PROJECT_ROWS = 50  # the projects page's page size
RENDER_RUNS = 5
MACHINES = ("ana-laptop", "ana-desktop", "ci-runner")


def seed_projects(api: Any, count: int) -> None:
    """``count`` projects, a session started in each (4 at a time), as a client of a named machine."""

    def one(n: int) -> None:
        body = {
            "session_id": f"proj-{n}-{uuid.uuid4().hex[:6]}",
            "cwd": f"/bench/projects/p{n:04d}",
            "source": "startup",
            "machine_name": MACHINES[n % len(MACHINES)],
            "branch": "main",
        }
        answer = api.hook("session-start", body)
        assert answer.status_code == 200, answer.text

    with ThreadPoolExecutor(max_workers=4) as threads:
        list(threads.map(one, range(count)))


def projects_render(browser: Any, url: str, token: str) -> float:
    """ms from navigation to the page's last row shown, in a fresh tab."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.add_init_script(signed_in(token))
    page = context.new_page()
    page.goto(f"{url}/dashboard#/projects")
    # (wait_for_function would evaluate a string in the page, which the dashboard's CSP forbids)
    page.locator("#projects tbody tr").nth(PROJECT_ROWS - 1).wait_for(timeout=60_000)
    elapsed = float(page.evaluate("performance.now()"))
    context.close()
    return elapsed


def run() -> dict[str, float]:
    try:
        import playwright.sync_api  # noqa: F401 - only whether it is there
    except ImportError:
        return {}
    from tests.e2e.chromium import CHROMIUM, chromium
    from tests.e2e.local_stack import Api

    if CHROMIUM is None:
        return {}
    out: dict[str, float] = {}
    with seeding_stack() as stack:
        seed_projects(Api(stack), PROJECTS)
        with chromium() as browser:
            cold = projects_render(browser, stack.url, stack.token)  # the function's worker starts
            out["dashboard_projects_first_render_cold_ms_200"] = round(cold, 1)
            renders = [projects_render(browser, stack.url, stack.token) for _ in range(RENDER_RUNS)]
            out["dashboard_projects_first_render_ms_200"] = round(statistics.median(renders), 1)
            out["dashboard_requests_projects_page"] = float(
                page_requests(browser, stack.url, stack.token, "#/projects", "#projects tbody tr")
            )
    return out
