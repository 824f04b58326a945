"""The dashboard's figures, on the local stack (``python -m infra.local``) in Debian's Chromium.

- dashboard_sessions_first_render_ms_500: from navigation to the sessions table showing its 100
  rows (the page's limit), read as ``performance.now()`` in the page, with 500 sessions stored in
  the project; median of 5 page loads in fresh tabs (the functions warm: the first load is reported
  as ``…_cold_ms_500``, the sessions function's worker starting included).
- dashboard_requests_sessions_page / _session_page / _checkpoint_page: the /api requests a page
  makes to render once (bounded: none per row): the sessions page's table and its pictures. The
  sessions page's polling adds 1 per 10 s, the session page's live view 1 per 2-30 s.
- (the projects page's figures: bench/bench_projects_page.py)
- search_cold_ms_200_local / search_ms_200_local: ``POST /api/sessions/search`` over a project of
  200 sessions of ~100 KB on the local stack: the first search (the function's worker already
  started by another search, so this is the index's cold: 200 transcript reads and their
  indexing), then the median of 5.

Skipped (no figures) without chromium or playwright.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

SESSIONS = 500
SEARCH_SESSIONS = 200
SESSION_CHARS = 100_000
RENDER_RUNS = 5
SEARCH_RUNS = 5
ROWS = 100  # the sessions page's page size


def signed_in(token: str) -> str:
    """A tab that signed in already: the token and who it is, as the sign-in keeps them."""
    who = '{"agent_id": "default", "scopes": ["admin", "hooks", "read"]}'
    keep = "sessionStorage.setItem"
    return f"{keep}('continuity.token', {token!r}); {keep}('continuity.who', {who!r})"


@contextmanager
def seeding_stack() -> Iterator[Any]:
    """A local stack of its own, in a temporary folder, stopped after: its rate limit lifted, as
    the seeding posts hundreds of hooks with one token, faster than the default 600 a minute."""
    from tests.e2e.local_stack import LocalStackProcess

    with tempfile.TemporaryDirectory() as base:
        stack = LocalStackProcess(Path(base) / "data", Path(base) / "local-stack.log")
        with mock.patch.dict(os.environ, {"CONTINUITY_RATE_LIMIT_PER_MINUTE": "100000"}):
            stack.start()
        try:
            yield stack
        finally:
            stack.stop()


def seed_sessions(api: Any, project: str, count: int, chars: int, rng: random.Random, pool: str) -> list[str]:
    """``count`` sessions, each one prompt with its transcript, as the client posts them (4 at a time)."""
    keys = [f"bench-{uuid.uuid4().hex[:10]}" for _ in range(count)]

    def one(key: str) -> None:
        at = rng.randrange(0, len(pool) - chars)
        text = f"User: {pool[at : at + chars - 40]} marker {key}\n\n"
        body = {"session_id": key, "cwd": project, "prompt": "go", "transcript": {"offset": 0, "text": text}}
        answer = api.hook("user-prompt-submit", body)
        assert answer.status_code == 200, answer.text

    with ThreadPoolExecutor(max_workers=4) as threads:
        list(threads.map(one, keys))
    return keys


def first_render(browser: Any, url: str, token: str, project: str) -> tuple[float, int]:
    """(ms from navigation to the sessions table's rows, /api requests made) in a fresh tab."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.add_init_script(signed_in(token))
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if "/api/" in r.url else None)
    page.goto(f"{url}/dashboard#/sessions?project={project}")
    # (wait_for_function would evaluate a string in the page, which the dashboard's CSP forbids)
    page.locator("tr[data-session]").nth(ROWS - 1).wait_for(timeout=60_000)
    elapsed = float(page.evaluate("performance.now()"))
    context.close()
    return elapsed, len(requests)


def page_requests(browser: Any, url: str, token: str, route: str, ready: str) -> int:
    context = browser.new_context()
    context.add_init_script(signed_in(token))
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if "/api/" in r.url else None)
    page.goto(f"{url}/dashboard{route}")
    page.locator(ready).first.wait_for(timeout=60_000)
    page.wait_for_load_state("networkidle")
    context.close()
    return len(requests)


def overview_ms(api: Any, project: str) -> float:
    """The sessions page's one request, alone (what the first render waits for)."""
    started = time.perf_counter()
    answer = api.http.get(
        f"{api.stack.url}/api/sessions/overview", params={"project": project, "limit": ROWS}, timeout=60
    )
    assert answer.status_code == 200 and len(answer.json()["sessions"]) == ROWS, answer.text[:300]
    return (time.perf_counter() - started) * 1000


def search_ms(api: Any, project: str, query: str) -> float:
    started = time.perf_counter()
    answer = api.http.post(
        f"{api.stack.url}/api/sessions/search",
        json={"query": query, "project": project, "limit": 10},
        timeout=120,
    )
    elapsed = (time.perf_counter() - started) * 1000
    assert answer.status_code == 200 and answer.json()["results"], answer.text
    return elapsed


def run() -> dict[str, float]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {}
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return {}
    from bench.bench_transcripts import prose, vocabulary
    from tests.e2e.chromium import CHROMIUM_ARGS
    from tests.e2e.local_stack import Api

    rng = random.Random(14)
    words = vocabulary(rng)
    pool = prose(rng, 2_000_000, words)
    out: dict[str, float] = {}
    with seeding_stack() as stack:
        api = Api(stack)
        project = f"/bench/dashboard-{uuid.uuid4().hex[:6]}"
        keys = seed_sessions(api, project, SESSIONS, 2_000, rng, pool)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            cold, requests = first_render(browser, stack.url, stack.token, project)
            renders = [first_render(browser, stack.url, stack.token, project)[0] for _ in range(RENDER_RUNS)]
            out["dashboard_sessions_first_render_cold_ms_500"] = cold
            out["dashboard_sessions_first_render_ms_500"] = statistics.median(renders)
            out["dashboard_requests_sessions_page"] = float(requests)
            session_route = f"#/session/{keys[0]}"
            out["dashboard_requests_session_page"] = float(
                page_requests(browser, stack.url, stack.token, session_route, "#transcript")
            )
            browser.close()
        out["dashboard_overview_api_ms_500"] = statistics.median(
            overview_ms(api, project) for _ in range(RENDER_RUNS)
        )
        search_project = f"/bench/search-{uuid.uuid4().hex[:6]}"
        seed_sessions(api, search_project, SEARCH_SESSIONS, SESSION_CHARS, rng, pool)
        # The sessions function's worker is started (and its search index warm) on another project
        # first: what follows is the index's cold start over 200 sessions, not the process's.
        search_ms(api, project, "marker")
        query = f"{words[60]} {words[600]} marker"
        out["search_cold_ms_200_local"] = search_ms(api, search_project, query)
        out["search_ms_200_local"] = statistics.median(
            search_ms(api, search_project, query) for _ in range(SEARCH_RUNS)
        )
    return out


if __name__ == "__main__":
    print(run())
