"""The dashboard in a real Chromium (Debian's, driven by Playwright) against the local stack.

One seeded project: a session with 20 prompts over two periodic checkpoints (a constraint said
between them), a remember, a transcript holding markup and a secret. Each test opens one page as a
person would and writes its screenshot to docs/dashboard/ (linked from docs/DASHBOARD.md).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
import requests

from tests.e2e.chromium import CHROMIUM, CHROMIUM_ARGS, sign_in
from tests.e2e.local_stack import Api, LocalStackProcess, wait_for

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extras")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary: apt-get install -y chromium"),
]

# Screenshots go to build/ so a test run leaves the tree clean; CONTINUITY_SCREENSHOTS=docs/dashboard
# (`make screenshots`) refreshes the ones docs/DASHBOARD.md links to.
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / os.environ.get("CONTINUITY_SCREENSHOTS", "build/dashboard-screenshots")
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
    where = {"machine_name": "ana-laptop", "branch": "fix/refunds"}
    data.hook("session-start", data.session, source="startup", **where)
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


def fits_a_phone(page: Any) -> bool:
    """At a phone's width the page wraps instead of scrolling sideways."""
    page.set_viewport_size({"width": 390, "height": 800})
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


# Words in these that a browser broke across lines (headers, badges, the nav, titles).
BROKEN_WORDS = """sel => [...document.querySelectorAll(sel)].flatMap(el => {
  const broken = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of node.textContent.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(word[0]);
    }
  }
  return broken;
})"""
WORDS_KEPT_WHOLE = "th, .status, .badge, .flag, .bar nav a, .bar button, h1, h2"


def test_a_wrong_token_is_refused_at_sign_in_and_the_nav_waits_for_a_good_one(
    page: Any, local_stack: LocalStackProcess
) -> None:
    # Given the sign-in page: no nav, no "Sign out"
    page.goto(f"{local_stack.url}/dashboard#/sessions")
    page.locator("#token").wait_for()
    assert not page.locator("#nav").is_visible() and not page.locator("#sign-out").is_visible()

    # When a wrong token is entered, it is refused there, saying what to do, and nothing is kept
    page.fill("#token", "not-a-token")
    page.click("button[type=submit]")
    problem = page.locator("#sign-in-error")
    problem.wait_for()
    assert "refused" in problem.inner_text() and "make run" in problem.inner_text()
    assert page.evaluate("sessionStorage.getItem('continuity.token')") is None
    assert not page.locator("#nav").is_visible()

    # Then the right one signs in, and the header says whose it is and what it can do
    page.fill("#token", local_stack.token)
    page.click("button[type=submit]")
    page.locator("#nav").wait_for()
    who = page.locator("#who").inner_text()
    assert who.startswith("Agent ") and "read sessions" in who and "post hooks" in who
    shot(page, "sign-in-who")


def test_a_page_that_fails_says_what_to_do_next(page: Any, local_stack: LocalStackProcess) -> None:
    sign_in(page, local_stack, "#/session/no-such-session")

    page.locator("[role=alert]").wait_for()
    assert "once its first hook has arrived" in page.locator("main").inner_text()

    page.evaluate("location.hash = '#/checkpoint/no-such-session/1'")
    page.locator("[role=alert]").wait_for()
    assert "open it from the Projects page" in page.locator("[role=alert]").inner_text()


def test_the_favicon_is_served_not_a_404(local_stack: LocalStackProcess) -> None:
    answer = requests.get(f"{local_stack.url}/favicon.ico", timeout=10)

    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("image/svg+xml")


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_pages_hold_at_desktop_and_phone_width_without_broken_words_or_sideways_scroll(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 860})
    second = seeded.checkpoints(2)[1]["sequence"]
    routes = {
        f"#/sessions?project={seeded.project}": f"tr[data-session='{seeded.session}']",
        f"#/session/{seeded.session}": "#transcript",
        f"#/checkpoint/{seeded.session}/{second}": "[data-change=added]",
    }
    sign_in(page, local_stack, "#/sessions")
    page.locator("#nav").wait_for()
    for route, ready in routes.items():
        page.evaluate(f"location.hash = {route!r}")
        page.locator(ready).first.wait_for()

        assert page.evaluate(BROKEN_WORDS, WORDS_KEPT_WHOLE) == [], route
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), route
        assert "?\u2013?" not in page.locator("main").inner_text(), route  # no "prompts ?-?"
        if width < 600 and route.startswith("#/sessions"):
            shot(page, "phone-sessions")


def test_the_timeline_runs_in_the_order_things_happened_a_late_compaction_last(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    # Given a prompt, a remember a second later, then the harness's compaction marker a second
    # after that, arriving with the pre-compaction hook (which writes a checkpoint)
    session = f"order-{uuid.uuid4().hex[:8]}"
    first = "User: ship the refunds fix\n\nAssistant: on it.\n\n"
    seeded.hook("session-start", session, source="startup")
    seeded.hook(
        "user-prompt-submit", session, prompt="ship the refunds fix", transcript={"offset": 0, "text": first}
    )
    time.sleep(1.2)
    seeded.hook("remember", session, content="Refunds go through the ledger.")
    time.sleep(1.2)
    marker = "--- context compacted (auto) ---\n\n"
    seeded.hook("pre-compaction", session, trigger="auto", transcript={"offset": len(first), "text": marker})

    # When its page is opened
    sign_in(page, local_stack, f"#/session/{session}")
    page.locator("#timeline li[data-kind=compaction]").wait_for()

    # Then the times never go back, and the compaction comes after the remember
    items = page.locator("#timeline li").evaluate_all(
        "items => items.map(i => [i.dataset.kind, i.querySelector('time').getAttribute('datetime')])"
    )
    kinds = [kind for kind, _ in items]
    times = [at for _, at in items if at]
    assert [datetime.fromisoformat(t) for t in times] == sorted(datetime.fromisoformat(t) for t in times)
    assert kinds.index("prompt") < kinds.index("remember") < kinds.index("compaction"), kinds


def read(api: Api, path: str, **params: str) -> Any:
    answer = api.http.get(f"{api.stack.url}{path}", params=params, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_first_page_lists_the_agents_projects_as_the_api_does(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded, api: Api
) -> None:
    # Given the seeded project among the agent's projects
    listed = read(api, "/api/projects", limit="50")["projects"]

    # When a person signs in (no route: the first page)
    sign_in(page, local_stack)
    row = page.locator(f"tr[data-project='{seeded.project}']")
    row.wait_for()

    # Then the projects show newest first, as the API orders them, with its counts
    shown = page.locator("#projects tbody tr").evaluate_all("rows => rows.map(r => r.dataset.project)")
    assert shown == [p["project_normalized"] for p in listed]
    mine = next(p for p in listed if p["project_normalized"] == seeded.project)
    cells = row.locator("td").all_inner_texts()
    assert cells[2] == str(mine["sessions"]) and cells[3] == "ana-laptop" and "claude-code" in cells[4]
    assert cells[5] == "0"  # open hand-offs
    shot(page, "projects")
    row.locator("a").click()
    page.locator(f"tr[data-session='{seeded.session}']").wait_for()


def test_the_session_strip_marks_compactions_and_sub_agents_where_the_api_puts_them(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded, api: Api
) -> None:
    # Given three prompts, a compaction, a fourth prompt and a sub-agent
    session = f"strip-{uuid.uuid4().hex[:8]}"
    seeded.hook("session-start", session, source="startup")
    offset = 0
    for n in range(1, 5):
        if n == 4:
            marker = "--- context compacted (auto) ---\n\n"
            seeded.hook(
                "pre-compaction", session, trigger="auto", transcript={"offset": offset, "text": marker}
            )
            offset += len(marker)
        text = f"User: step {n} of the strip\n\nAssistant: done.\n\n"
        seeded.hook(
            "user-prompt-submit", session, prompt=f"step {n}", transcript={"offset": offset, "text": text}
        )
        offset += len(text)
    seeded.hook("subagent-start", session, agent_id="explorer-9", agent_type="Explore")
    events = read(api, f"/api/sessions/{session}/timeline")["events"]

    # When its page is opened
    sign_in(page, local_stack, f"#/session/{session}")
    strip = page.locator("#strip")
    strip.wait_for()

    # Then each mark sits after the prompt the API's timeline puts it after, and reads as text
    expected, prompt = [], 0
    for event in events:
        if event["kind"] == "prompt":
            prompt = event["prompt"]
        elif event["kind"] in ("compaction", "subagent_start"):
            expected.append((event["kind"], prompt))
    drawn = strip.locator("svg .mark:not(.checkpoint):not(.agent_digest)").evaluate_all(
        "marks => marks.map(m => [m.dataset.kind, Number(m.dataset.prompt)])"
    )
    assert sorted(map(tuple, drawn)) == sorted(expected) == [("compaction", 3), ("subagent_start", 4)]
    label = strip.locator("svg").get_attribute("aria-label") or ""
    assert "Along 4 prompts" in label and "1 compaction" in label and "1 sub-agent start" in label
    table = strip.locator("table").text_content() or ""
    assert "Compaction" in table and "3" in table
    shot(page, "session-strip")


def test_the_session_page_shows_a_prompt_that_arrives_while_it_is_open(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    session = f"live-{uuid.uuid4().hex[:8]}"
    first = "User: first\n\n"
    seeded.hook("user-prompt-submit", session, prompt="first", transcript={"offset": 0, "text": first})
    sign_in(page, local_stack, f"#/session/{session}")
    page.locator("#timeline li[data-kind=prompt]").first.wait_for()

    seeded.hook(
        "user-prompt-submit",
        session,
        prompt="second",
        transcript={"offset": len(first), "text": "User: second\n\n"},
    )

    # Polled every 2 s while things change: the second prompt shows without a reload
    page.locator("#timeline li[data-kind=prompt]").nth(1).wait_for(timeout=10_000)
    assert "Live" in page.locator("#live").inner_text()


def test_signing_in_shows_the_projects_sessions_with_their_counts(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    sign_in(page, local_stack, f"#/sessions?project={seeded.project}")

    row = page.locator(f"tr[data-session='{seeded.session}']")
    row.wait_for()
    cells = row.locator("td").all_inner_texts()
    assert cells[1] == "claude-code" and cells[2] == "ana-laptop · fix/refunds" and cells[3] == "active"
    assert cells[5] == "20" and int(cells[6]) >= 2 and cells[7:9] == ["0", "0"]  # no compaction, sub-agent
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


def test_leaving_the_sessions_page_before_its_sessions_arrive_stops_its_refresh(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    asked: list[str] = []
    held: list[Any] = []

    def hold_the_first_answer(route: Any) -> None:
        asked.append(route.request.url)
        if len(asked) == 1:
            held.append(route)  # answered once the page has been left
        else:
            route.continue_()

    page.clock.install()
    page.route("**/api/sessions/overview?*", hold_the_first_answer)
    sign_in(page, local_stack, f"#/sessions?project={seeded.project}&every=2")
    page.get_by_text("Loading sessions…").wait_for()
    page.evaluate("location.hash = '#/search'")
    page.get_by_role("heading", name="Search").wait_for()

    with page.expect_response("**/api/sessions/overview?*"):
        held[0].continue_()
    page.wait_for_timeout(300)  # the left page reads its late answer
    page.clock.run_for(10_000)  # five refreshes, were it still refreshing
    page.wait_for_timeout(500)  # for any such request to reach the route

    assert len(asked) == 1, asked
    assert page.get_by_role("heading", name="Search").is_visible()


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
    marker = transcript.locator("mark.redacted").first
    # The stored transcript pads the marker to the secret's length: shown as the marker alone
    assert marker.inner_text() == "[REDACTED:github_token]"
    assert f"({len(SECRET)} characters)" in (marker.get_attribute("title") or "")
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


class Cleared:
    """A session cleared with /clear, the next one's start under a small cap (so its block is cut), a
    prompt, then a Claude Code sub-agent started under it."""

    def __init__(self, seeded: Seeded) -> None:
        self.project = f"/tmp/dash-clear-{uuid.uuid4().hex[:8]}"
        self.before = f"before-{uuid.uuid4().hex[:8]}"
        self.after = f"after-{uuid.uuid4().hex[:8]}"
        self.api = seeded.api

    def hook(self, event: str, session: str, **fields: Any) -> dict[str, Any]:
        answer = self.api.hook(event, {"session_id": session, "cwd": self.project, **fields})
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        return body


@pytest.fixture(scope="module")
def cleared(seeded: Seeded) -> tuple[Cleared, str]:
    data = Cleared(seeded)
    data.hook("session-start", data.before, source="startup")
    offset = 0
    for n in range(3):
        text = f"User: {CONSTRAINT} Step {n} of the migration, keep going.\n\n"
        data.hook("user-prompt-submit", data.before, prompt=text, transcript={"offset": offset, "text": text})
        offset += len(text)
    for n in range(4):
        data.hook(
            "remember", data.before, content=f"Rule {n}: {CONSTRAINT} " + "and keep the audit log. " * 10
        )
    data.hook("session-end", data.before, reason="clear")
    answer = data.hook("session-start", data.after, source="clear", injection_cap_chars=600)
    data.hook(
        "user-prompt-submit",
        data.after,
        prompt="carry on",
        transcript={"offset": 0, "text": "User: carry on\n\n"},
    )
    data.hook("subagent-start", data.after, agent_id="explorer-1", agent_type="Explore")
    block = answer.get("hookSpecificOutput", {}).get("additionalContext") or answer.get("additional_context")
    assert block, answer
    return data, block


def test_the_inspector_shows_the_block_a_session_start_got_and_flags_it_truncated(
    page: Any, local_stack: LocalStackProcess, cleared: tuple[Cleared, str]
) -> None:
    data, block = cleared
    sign_in(page, local_stack, f"#/injections/{data.after}")

    start = page.locator("article.injection[data-event=session_start]")
    start.wait_for()
    # The block as the agent got it, cut to the 600-character cap and flagged as cut
    assert start.locator("pre.block-text").inner_text() == block
    assert "truncated" in start.get_attribute("class")
    assert "of 600 characters" in start.locator(".size").inner_text()
    assert start.locator("[data-section=recovery] .flag.truncated").count() == 1
    assert data.before in start.locator(".links").inner_text()
    shot(page, "injections")
    assert fits_a_phone(page)


def test_the_preview_shows_what_a_session_starting_now_would_get(
    page: Any, local_stack: LocalStackProcess, cleared: tuple[Cleared, str]
) -> None:
    data, _ = cleared
    sign_in(page, local_stack, f"#/preview?project={data.project}&cap=300")

    card = page.locator("#preview article.injection")
    card.wait_for()
    assert "of 300 characters" in card.locator(".size").inner_text()
    assert data.before in card.locator("pre.block-text").inner_text()
    assert "truncated" in card.get_attribute("class")
    shot(page, "preview")


def test_lineage_shows_the_cleared_session_and_the_subagent_with_how_each_was_found(
    page: Any, local_stack: LocalStackProcess, cleared: tuple[Cleared, str]
) -> None:
    data, _ = cleared
    sign_in(page, local_stack, f"#/lineage/{data.after}")

    links = page.locator("#lineage li")
    links.first.wait_for()
    texts = links.all_inner_texts()
    continued = next(t for t in texts if "continued by" in t)
    assert data.before in continued and "/clear" in continued
    subagent = next(t for t in texts if "sub-agent" in t)
    assert f"{data.after}:subagent:explorer-1" in subagent and "Claude Code session id" in subagent
    # The cleared session's own lineage names the session that continued it
    page.goto(f"{local_stack.url}/dashboard#/lineage/{data.before}")
    page.locator("#lineage li").first.wait_for()
    continued_by = page.locator("#lineage li[data-kind=continued]").inner_text()
    assert data.after in continued_by and "/clear" in continued_by
    # The session page shows the same links next to its injections
    page.goto(f"{local_stack.url}/dashboard#/session/{data.after}")
    page.locator("#lineage li").first.wait_for()
    assert page.locator("#injections article.injection").count() == 2
    shot(page, "lineage")


def test_the_sessions_page_counts_sub_agents_and_compactions_and_lists_a_session_without_transcript(
    page: Any, local_stack: LocalStackProcess, cleared: tuple[Cleared, str]
) -> None:
    # Given, beside the cleared project's sessions, one that only started and compacted (no transcript)
    data, _ = cleared
    quiet = f"quiet-{uuid.uuid4().hex[:6]}"
    data.hook("session-start", quiet, source="startup")
    data.hook("pre-compaction", quiet, trigger="manual")

    sign_in(page, local_stack, f"#/sessions?project={data.project}")

    # Then it is listed with its compaction, and the session that started a sub-agent counts it
    row = page.locator(f"tr[data-session='{quiet}']")
    row.wait_for()
    assert row.locator("td[data-label=Compactions]").inner_text() == "1"
    after = page.locator(f"tr[data-session='{data.after}'] td[data-label=Sub-agents]")
    assert after.inner_text() == "1"
    assert page.locator("#sessions tbody tr").count() == 3  # before, after and the quiet one
    shot(page, "sessions-counts")
    assert fits_a_phone(page)


def test_a_sessions_timeline_shows_its_sub_agent_start_linking_the_sub_agent(
    page: Any, local_stack: LocalStackProcess, cleared: tuple[Cleared, str]
) -> None:
    data, _ = cleared
    sign_in(page, local_stack, f"#/session/{data.after}")

    event = page.locator("#timeline li[data-kind=subagent_start]")
    event.wait_for()

    assert "explorer-1" in event.inner_text()
    link = event.locator("a")
    assert unquote(link.get_attribute("href") or "") == f"#/session/{data.after}:subagent:explorer-1"
    assert "1 sub-agents" in page.locator("p.meta").inner_text()


def test_the_ledger_lists_decisions_in_order_and_flags_forks(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    project = f"/tmp/dash-ledger-{uuid.uuid4().hex[:8]}"
    main, fork, later = (f"{name}-{uuid.uuid4().hex[:6]}" for name in ("main", "fork", "later"))
    for session, decision in [
        (main, "Use SQS"),
        (fork, "Use Kafka"),
        (main, "Batch by 10"),
        (later, "Ship it"),
    ]:
        assert seeded.api.hook("session-start", {"session_id": session, "cwd": project}).status_code == 200
        digest: dict[str, Any] = {
            "summary": "s",
            "decisions": [{"decision": decision, "rationale": f"why {decision}"}],
        }
        answer = requests.post(
            f"{local_stack.url}/api/sessions/{session}/digest",
            json=digest,
            headers={"Authorization": f"Bearer {local_stack.token}"},
            timeout=10,
        )
        assert answer.status_code == 201, answer.text

    sign_in(page, local_stack, f"#/ledger?project={project}")

    decisions = page.locator("li.decision")
    decisions.first.wait_for()
    texts = decisions.all_inner_texts()
    assert [t.split("\n")[0].split(" fork")[0] for t in texts] == [
        "Use SQS",
        "Use Kafka",
        "Batch by 10",
        "Ship it",
    ]
    flagged = page.locator("li.decision.fork").evaluate_all("items => items.map(i => i.dataset.session)")
    assert sorted(set(flagged)) == sorted({main, fork})
    shot(page, "ledger")


def test_a_token_created_in_the_page_works_and_stops_working_once_revoked(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    sign_in(page, local_stack, "#/tokens")
    page.locator("#tokens table, #tokens .state.empty").first.wait_for()
    name = f"viewer-{uuid.uuid4().hex[:6]}"
    page.fill("input[name=name]", name)
    page.click("form[aria-label='Create a token'] button[type=submit]")
    secret = page.locator("#new-token").inner_text()
    overview = f"{local_stack.url}/api/sessions/overview"

    def status(spaces: int) -> int:
        headers = {"Authorization": "Bearer" + " " * spaces + secret}
        return requests.get(
            overview, params={"project": seeded.project}, headers=headers, timeout=10
        ).status_code

    assert status(1) == 200
    shot(page, "tokens")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(f"button[aria-label='Revoke {name}']")
    page.locator("tr", has_text=name).locator(".status.ended").wait_for()
    # The gateway reuses an authorizer answer per Authorization value for its cache TTL (5 min, as
    # API Gateway does): the refusal is asked for under a value the cache has not seen.
    assert status(2) == 403


def test_health_shows_the_queues_requests_per_minute_and_the_pruner(
    page: Any, local_stack: LocalStackProcess, seeded: Seeded
) -> None:
    # Given a read of a session that does not exist (404), and the same function's next answer
    # over 5 s later (an instance adds its counts then)
    headers = {"Authorization": f"Bearer {local_stack.token}"}
    missing = f"{local_stack.url}/api/sessions/nobody-{uuid.uuid4().hex[:6]}/timeline"
    assert requests.get(missing, headers=headers, timeout=10).status_code == 404
    time.sleep(5.5)
    assert requests.get(missing, headers=headers, timeout=10).status_code == 404

    sign_in(page, local_stack, "#/health")

    page.locator("#rate tbody tr").first.wait_for()
    minutes = page.locator("#rate tbody tr td[data-label=Requests]").all_inner_texts()
    # The seeded prompts went through the rate limiter's windows within the last 15 minutes
    assert len(minutes) == 15 and sum(int(m) for m in minutes) > 0
    assert sum(int(m) for m in page.locator("#rate td[data-label='4xx']").all_inner_texts()) >= 1
    # and each harness and event shows when it was last received
    assert page.locator("#hooks tr[data-hook='claude-code user-prompt-submit']").count() == 1
    assert "waiting" in page.locator("#queues [data-queue='Dead-letter queue']").inner_text()
    assert page.locator("#pruner").inner_text()
    shot(page, "health")
    assert fits_a_phone(page)


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_a_projects_pictures_draw_the_apis_numbers_and_mark_a_cut_block(
    page: Any,
    local_stack: LocalStackProcess,
    seeded: Seeded,
    cleared: tuple[Cleared, str],
    api: Api,
    width: int,
) -> None:
    data, _ = cleared
    page.set_viewport_size({"width": width, "height": 860})
    sign_in(page, local_stack, "#/projects")
    page.locator("#nav").wait_for()
    for project in (seeded.project, data.project):
        activity = read(api, "/api/projects/activity", project=project, days="14")

        page.evaluate(f"location.hash = {f'#/sessions?project={project}'!r}")
        page.locator("#activity-chart").wait_for()

        # Per day and series, the bars carry the API's numbers
        bars = page.locator("#activity-chart rect.bar").evaluate_all(
            "bars => bars.map(b => [b.dataset.series, b.dataset.day, Number(b.dataset.value)])"
        )
        expected = [[name, d["day"], d[name]] for name in SERIES for d in activity["days"]]
        assert bars == expected
        # Each session start against its cap, a cut one marked as such
        starts = page.locator("#starts-chart g.start").evaluate_all(
            "gs => gs.map(g => [+g.dataset.chars, +g.dataset.cap, g.dataset.truncated === 'true'])"
        )
        assert starts == [[s["chars"], s["cap_chars"], s["truncated"]] for s in activity["starts"]]
        assert page.locator("#starts-chart .cut-label").count() == sum(
            s["truncated"] for s in activity["starts"]
        )
        # Compactions per session
        drawn = page.locator("#compactions-chart g.session-compactions").evaluate_all(
            "gs => gs.map(g => [g.dataset.session, Number(g.dataset.value)])"
        )
        assert drawn == [[s["session_key"], s["compactions"]] for s in activity["sessions"]]
        # Readable as text, and the page still fits its width
        assert "prompts checkpointed" in (
            page.locator("#activity-chart svg").get_attribute("aria-label") or ""
        )
        assert page.locator("#activity-chart table tbody tr").count() == 14
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert page.evaluate(BROKEN_WORDS, WORDS_KEPT_WHOLE) == []
        if project == data.project:
            assert any(s["truncated"] for s in activity["starts"])
        else:
            assert sum(d["prompts"] for d in activity["days"]) >= 20
            assert sum(d["checkpoints"] for d in activity["days"]) >= 2
    if width == 1280:
        page.evaluate(f"location.hash = {f'#/sessions?project={seeded.project}'!r}")
        page.locator("#activity-chart").wait_for()
        shot(page, "project-pictures")


SERIES = ["prompts", "checkpoints", "compactions", "recoveries"]
