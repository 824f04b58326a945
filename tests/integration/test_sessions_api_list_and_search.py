"""GET /api/sessions, GET /api/sessions/{key}/transcript and POST /api/sessions/search on moto."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from continuity_core.models.state import SessionIdentity
from tests.support import on_aws
from tests.support.api import InProcessService
from tests.support.clock import Clock, install_clock
from tests.support.cold_starts import reset_functions
from tests.support.sessions import SessionsApi

FILLER = "We looked at the writer, ran the tests, and read the logs again. "


@pytest.fixture
def clock(service: InProcessService, monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The functions' clock, stopped at the current second: what the tests write is an hour old at
    most, well inside the transcript retention whenever the suite runs."""
    return install_clock(monkeypatch, datetime.now(UTC).replace(microsecond=0))


@pytest.fixture
def api(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> Iterator[SessionsApi]:
    monkeypatch.setenv("CONTINUITY_TRANSCRIPT_CHUNK_CHARS", "16384")
    monkeypatch.setenv("CONTINUITY_SEARCH_MAX_SESSIONS", "5")
    reset_functions()
    yield SessionsApi()


class Writer:
    """Appends behind the API's back, read back on the functions' clock."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    def __call__(
        self, session: str, text: str, at: datetime, project: str = "/work/app", harness: str = "claude-code"
    ) -> None:
        assert at <= self.clock.now, "an append after the clock's now"
        identity = SessionIdentity(
            session_key=session, harness=harness, project=project, project_normalized=project
        )
        head = on_aws.transcript_reader(self.clock).assembled_head("default", session)
        on_aws.transcript_appender().append("default", identity, head.length if head else 0, text, at)


@pytest.fixture
def write(api: SessionsApi, clock: Clock) -> Writer:
    return Writer(clock)


@pytest.fixture
def t0(clock: Clock) -> datetime:
    """When the first transcript is written: an hour before the clock's now."""
    return clock.now - timedelta(hours=1)


def iso(moment: datetime) -> str:
    """A whole-second UTC time as the API writes it."""
    return f"{moment:%Y-%m-%dT%H:%M:%S}Z"


# -- the list ----------------------------------------------------------------------------------------


def test_a_projects_sessions_are_listed_newest_first_in_pages(
    api: SessionsApi, write: Writer, t0: datetime
) -> None:
    # Given five sessions of the project started at different times, and one elsewhere
    for n in range(5):
        write(f"s{n}", "text", t0 + timedelta(minutes=n))
    write("s1", " more", t0 + timedelta(minutes=10))  # s1 grows later: its summary says so
    write("other", "text", t0, project="/work/other")
    # When they are listed two at a time
    status, first = api.sessions(project="/work/app", limit="2")
    _, second = api.sessions(project="/work/app", limit="2", next_token=first["next_token"])
    _, third = api.sessions(project="/work/./app/", limit="2", next_token=second["next_token"])
    # Then they come newest first across pages (by when their transcript started), only the project's
    assert status == 200
    keys = [s["session_key"] for page in (first, second, third) for s in page["sessions"]]
    assert keys == ["s4", "s3", "s2", "s1", "s0"]
    assert third["next_token"] is None
    assert second["sessions"][1] == {
        "session_key": "s1",
        "harness": "claude-code",
        "project": "/work/app",
        "project_normalized": "/work/app",
        "created_at": iso(t0 + timedelta(minutes=1)),
        "updated_at": iso(t0 + timedelta(minutes=10)),
        "length": 9,
    }


def test_a_token_from_another_project_or_tampered_is_refused(
    api: SessionsApi, write: Writer, t0: datetime
) -> None:
    for n in range(3):
        write(f"s{n}", "text", t0 + timedelta(minutes=n))
    _, page = api.sessions(project="/work/app", limit="1")
    document = json.loads(base64.urlsafe_b64decode(page["next_token"] + "=="))
    document["key"]["pk"] = "A#someone-else#S#s1"
    forged = base64.urlsafe_b64encode(json.dumps(document).encode()).decode()
    for token, project in ((page["next_token"], "/work/other"), (forged, "/work/app"), ("%%%", "/work/app")):
        status, body = api.sessions(project=project, next_token=token)
        assert status == 400, body


def test_listing_needs_a_project(api: SessionsApi) -> None:
    status, _ = api.sessions()
    assert status == 422


def test_another_tenant_sees_none_of_it(api: SessionsApi, write: Writer, t0: datetime) -> None:
    write("s1", "text", t0)
    _, body = SessionsApi(agent_id="other").sessions(project="/work/app")
    assert body["sessions"] == []


def test_an_unknown_session_has_no_transcript(api: SessionsApi) -> None:
    status, body = api.transcript("nope")
    assert status == 404
    assert body["error"] == "not_found"


# -- search ------------------------------------------------------------------------------------------


def test_search_finds_a_word_in_one_session_with_a_snippet_around_it(
    api: SessionsApi, write: Writer, t0: datetime
) -> None:
    write("s1", FILLER * 300 + "We chose the flamingo schema for the ledger. " + FILLER * 300, t0)
    status, body = api.search(query="flamingo", session_key="s1")
    assert status == 200
    (hit,) = body["results"]
    assert hit["session_key"] == "s1" and hit["project"] == "/work/app"
    assert "«flamingo»" in hit["snippet"]
    assert 100 <= len(hit["snippet"]) <= 400
    assert hit["score"] > 0
    assert hit["updated_at"] == iso(t0)


def test_a_project_search_ranks_sessions_and_leaves_out_the_asking_one(
    api: SessionsApi, write: Writer, t0: datetime
) -> None:
    write("weak", FILLER * 50 + "postgres once. " + FILLER * 50, t0)
    write("strong", "postgres migration: the postgres migration plan. " + FILLER, t0 + timedelta(minutes=1))
    write("asker", "postgres migration postgres migration", t0 + timedelta(minutes=2))
    write("elsewhere", "postgres migration", t0, project="/work/other")
    status, body = api.search(query="postgres migration", project="/work/app", asking_session_key="asker")
    assert status == 200
    assert [r["session_key"] for r in body["results"]] == ["strong", "weak"]


def test_the_asking_sessions_project_is_the_default_scope(
    api: SessionsApi, write: Writer, t0: datetime
) -> None:
    write("parent", "the answer is in the quasar module", t0)
    write("child", "looking for it", t0 + timedelta(minutes=1))
    write("elsewhere", "quasar too", t0, project="/work/other")
    _, body = api.search(query="quasar", asking_session_key="child")
    assert [r["session_key"] for r in body["results"]] == ["parent"]


def test_the_scope_is_the_projects_most_recent_sessions_only(
    api: SessionsApi, write: Writer, t0: datetime
) -> None:
    # Given the word only in the oldest of seven sessions, with a scope of five
    write("oldest", "the narwhal detail", t0)
    for n in range(6):
        write(f"s{n}", FILLER, t0 + timedelta(minutes=n + 1))
    _, body = api.search(query="narwhal", project="/work/app")
    assert body["results"] == []


def test_search_reads_only_what_was_appended_since_the_last_search(
    api: SessionsApi, write: Writer, t0: datetime
) -> None:
    write("s1", FILLER * 400, t0)
    api.search(query="writer", project="/work/app")
    write("s1", "a new word: okapi.", t0 + timedelta(minutes=1))
    from continuity_core.kernel.aws import client

    calls: list[str] = []
    for name in ("dynamodb", "s3"):
        client(name).meta.events.register("before-call", lambda model, **_: calls.append(model.name))
    _, body = api.search(query="okapi", project="/work/app")
    assert [r["session_key"] for r in body["results"]] == ["s1"]
    assert "GetObject" not in calls  # no S3: the chunk read before is still indexed


def test_search_validates_its_body(api: SessionsApi) -> None:
    assert api.search(query="x")[0] == 422  # no scope
    assert api.search(query="x", project="/p", limit=21)[0] == 422
    assert api.search(query="", project="/p")[0] == 422


def test_search_is_per_tenant(api: SessionsApi, write: Writer, t0: datetime) -> None:
    write("s1", "the unicorn plan", t0)
    _, body = SessionsApi(agent_id="other").search(query="unicorn", project="/work/app")
    assert body["results"] == []
    _, body = SessionsApi(agent_id="other").search(query="unicorn", session_key="s1")
    assert body["results"] == []
