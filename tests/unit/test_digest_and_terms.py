from datetime import UTC, datetime, timedelta

from continuity_core.checkpoints.passive_digest import format_duration, render_session_digest
from continuity_core.extraction.terms import key_terms, snippet
from continuity_core.models.state import SessionState

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_key_terms_drop_stopwords_and_repeats() -> None:
    assert key_terms("Please fix the flaky test in parser_test.py and the parser") == (
        "fix flaky test parser_test.py parser"
    )
    assert key_terms("ok thanks") is None
    assert key_terms(None) is None


def test_snippets_collapse_whitespace_and_stay_within_200_chars() -> None:
    long = "word " * 100

    cut = snippet(long)

    assert cut is not None
    assert len(cut) <= 200
    assert cut.endswith("…")
    assert snippet("a\n\n  b") == "a b"


def test_the_digest_has_the_documented_sections() -> None:
    state = SessionState(
        session_key="s",
        harness="claude-code",
        project="/work/app",
        started_at=NOW - timedelta(minutes=75),
        last_activity_at=NOW,
        total_prompts=12,
        prompts_since_checkpoint=2,
        pending_queries=["parser bug", "flaky test", "parser bug"],
        pending_remembers=["use uv, not pip"],
        pending_snippets=["fix the parser bug", "and the flaky test"],
    )

    digest = render_session_digest(state, NOW)

    assert digest.splitlines()[:3] == [
        "## Session Checkpoint",
        "Project: /work/app",
        "Prompts: 12 | Duration: 1h 15m",
    ]
    assert "### Recent Prompts\n- fix the parser bug\n- and the flaky test" in digest
    assert "### Memory Activity Since Last Checkpoint" in digest
    assert "Queries: flaky test; parser bug" in digest
    assert "Remembered: use uv, not pip" in digest


def test_durations_read_naturally() -> None:
    assert format_duration(timedelta(seconds=42)) == "42s"
    assert format_duration(timedelta(minutes=14, seconds=59)) == "14m"
    assert format_duration(timedelta(hours=3, minutes=2)) == "3h 2m"


def test_a_remember_is_taken_in_at_the_time_it_arrived_not_when_a_checkpoint_reads_it() -> None:
    from continuity_core.checkpoints.rolling_inputs import digest_inputs
    from continuity_core.models.session_digest import FactSource

    said = NOW - timedelta(seconds=6)
    base = {
        "session_key": "s",
        "harness": "claude-code",
        "started_at": NOW - timedelta(minutes=5),
        "last_activity_at": NOW,
        "pending_remembers": ["staging is 8787"],
    }
    kept = SessionState.model_validate({**base, "pending_remember_at": [said]})
    older = SessionState.model_validate(base)  # written before the times were kept

    remembered = [s for s in digest_inputs(kept, "", [], NOW).statements if s.source is FactSource.REMEMBER]
    unknown = [s for s in digest_inputs(older, "", [], NOW).statements if s.source is FactSource.REMEMBER]

    assert [s.at for s in remembered] == [said]
    assert [s.at for s in unknown] == [NOW]
