"""The dashboard in a real Chromium (Debian's, driven by Playwright) against the local stack.

One seeded project: a session with 20 prompts over two periodic checkpoints (a constraint said
between them), a remember, a transcript holding markup and a secret. Each test opens one page as a
person would and writes its screenshot to docs/dashboard/ (linked from docs/DASHBOARD.md).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e.local_stack import Api, LocalStackProcess, wait_for

CHROMIUM = shutil.which("chromium") or next(
    (p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(p)), None
)
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extras")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary: apt-get install -y chromium"),
]

# Screenshots go to build/ so a test run leaves the tree clean; CONTINUITY_SCREENSHOTS=docs/dashboard
# (`make screenshots`) refreshes the ones docs/DASHBOARD.md links to.
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / os.environ.get("CONTINUITY_SCREENSHOTS", "build/dashboard-screenshots")
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
HOSTILE = 'see <script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned = 2">'
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
CONSTRAINT = "You must never push to main without a review."
WORD = "zanzibar"


class Seeded:
    def __init__(self, api: Api) -> None:
        self.api = api
        self.project = f"/tmp/dash-{uuid.uuid4().hex[:8]}"
        self.session = f"dash-{uuid.uuid4().hex[:8]}"
        self.offset = 0

    def prompt(self, text: str) -> None:
        delta = f"User: {text}\n\nAssistant: on it.\n\n"
        body = {"transcript": {"offset": self.offset, "text": delta}}
        self.hook("user-prompt-submit", self.session, prompt=text, **body)
        self.offset += len(delta)

    def hook(self, event: str, session: str, **fields: Any) -> None:
        answer = self.api.hook(event, {"session_id": session, "cwd": self.project, **fields})
        assert answer.status_code == 200, answer.text

    def checkpoints(self, count: int) -> list[dict[str, Any]]:
        found = wait_for(lambda: self.api.session_checkpoints(self.session), lambda f: len(f) >= count, 30)
        assert len(found) >= count, found
        return found


@pytest.fixture(scope="module")
def seeded(api: Api) -> Seeded:
    data = Seeded(api)
    data.hook("session-start", data.session, source="startup")
    data.prompt("We'll use SQS for the checkpoint queue.")
    data.prompt(HOSTILE)
    data.prompt(f"the deploy token is {SECRET}, and the island is {WORD}")
    for n in range(4, 11):
        data.prompt(f"step {n} of the payment refactor")
    data.checkpoints(1)
    data.hook("remember", data.session, content="The staging port is 8787.")
    data.prompt(CONSTRAINT)
    for n in range(12, 21):
        data.prompt(f"step {n} of the payment refactor")
    data.checkpoints(2)
    return data


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, local_stack: LocalStackProcess) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, errors


def sign_in(page: Any, stack: LocalStackProcess, hash_route: str = "") -> None:
    page.goto(f"{stack.url}/dashboard{hash_route}")
    page.fill("#token", stack.token)
    page.click("button[type=submit]")


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_signing_in_shows_the_projects_sessions_with_their_counts(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    sign_in(page, local_stack, f"#/sessions?project={seeded.project}")

    row = page.locator(f"tr[data-session='{seeded.session}']")
    row.wait_for()
    cells = row.locator("td").all_inner_texts()
    assert cells[1] == "claude-code" and cells[2] == "active"
    assert cells[4] == "20" and int(cells[5]) >= 2
    # The token is this tab's alone: not in localStorage, and a new tab asks for it again.
    assert page.evaluate("localStorage.length") == 0
    assert page.evaluate("sessionStorage.getItem('continuity.token')") == local_stack.token
    shot(page, "sessions")
    other_tab = page.context.browser.new_context().new_page()
    other_tab.goto(f"{local_stack.url}/dashboard")
    assert other_tab.locator("#token").is_visible()
    other_tab.context.close()


def test_the_sessions_page_shows_a_session_whose_first_hook_arrives_while_it_is_open(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    sign_in(page, local_stack, f"#/sessions?project={seeded.project}&every=2")
    page.locator(f"tr[data-session='{seeded.session}']").wait_for()
    newcomer = f"late-{uuid.uuid4().hex[:6]}"

    seeded.hook(
        "user-prompt-submit", newcomer, prompt="hello", transcript={"offset": 0, "text": "User: hello\n\n"}
    )

    page.locator(f"tr[data-session='{newcomer}']").wait_for(timeout=10_000)


def test_a_session_shows_its_timeline_digest_and_transcript_with_markup_as_plain_text(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    sign_in(page, local_stack, f"#/session/{seeded.session}")

    page.locator("#transcript").wait_for()
    kinds = page.locator("#timeline li").evaluate_all("items => items.map(i => i.dataset.kind)")
    assert kinds[0] == "session_start" and kinds.count("prompt") == 20 and kinds.count("checkpoint") >= 2
    assert "remember" in kinds
    assert CONSTRAINT in page.locator("#digest").inner_text()
    transcript = page.locator("#transcript")
    assert HOSTILE in transcript.inner_text()
    assert transcript.locator("script, img").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert SECRET not in page.content()
    assert transcript.locator("mark.redacted").count() >= 1
    shot(page, "session")


def test_a_checkpoint_shows_the_constraint_added_since_the_one_before(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    second = seeded.checkpoints(2)[1]["sequence"]

    sign_in(page, local_stack, f"#/checkpoint/{seeded.session}/{second}")

    added = page.locator("[data-change=added]")
    added.wait_for()
    assert CONSTRAINT in added.inner_text()
    assert CONSTRAINT not in page.locator("[data-change=dropped]").inner_text()
    shot(page, "checkpoint")


def test_search_finds_a_word_from_a_transcript(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    sign_in(page, local_stack, f"#/search?q={WORD}&project={seeded.project}")

    hit = page.locator(".hit").first
    hit.wait_for()
    assert seeded.session in hit.inner_text() and WORD in hit.inner_text().lower()
    shot(page, "search")


def test_the_dashboard_is_served_with_a_policy_that_forbids_inline_script(
    local_stack: LocalStackProcess,
) -> None:
    answer = requests.get(f"{local_stack.url}/dashboard", timeout=10)

    policy = answer.headers["Content-Security-Policy"]
    assert answer.status_code == 200 and "default-src 'self'" in policy and "'unsafe-inline'" not in policy
    assert requests.get(f"{local_stack.url}/dashboard/../etc/passwd", timeout=10).status_code == 404
