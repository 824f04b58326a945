"""The compaction nudge on the harness's own context figure (``context_tokens``), handlers on moto.

Default config: a 200,000-token window, nudged from ``nudgeThresholdPercent`` of it.
"""

from continuity_core import services
from continuity_core.config import ContinuityConfig
from tests.integration.conftest import prompt
from tests.support.api import InProcessService

DEFAULTS = ContinuityConfig()
PERCENT = DEFAULTS.nudge_threshold_percent
THRESHOLD = DEFAULTS.context_window_tokens * PERCENT // 100
LOW_ESTIMATE = 40_000  # readable characters: ~10,000 tokens, what the old estimate saw of it


def nudge(service: InProcessService, context_tokens: int | None, chars: int = LOW_ESTIMATE) -> str:
    body: dict[str, object] = {**prompt("s", 1), "transcript_chars": chars}
    if context_tokens is not None:
        body["context_tokens"] = context_tokens
    status, answer = service.hook("user-prompt-submit", body)
    assert status == 200, answer
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_the_harness_figure_nudges_while_the_transcript_estimate_is_low(service: InProcessService) -> None:
    # Given a session whose readable transcript stays small (tool results are cut)
    # When the harness reports its context just below, then at the threshold
    below = nudge(service, THRESHOLD - 1)
    at = nudge(service, THRESHOLD)

    # Then the nudge comes at the threshold, with the harness's share of the window
    assert below == ""
    assert "session_digest" in at and f"about {PERCENT}% full" in at


def test_the_nudge_fires_once_per_crossing_and_re_arms_when_the_context_shrinks(
    service: InProcessService,
) -> None:
    assert "session_digest" in nudge(service, 150_000)
    assert nudge(service, 170_000) == ""  # the same crossing
    assert nudge(service, 30_000) == ""  # compacted: the context shrank, re-armed
    assert "session_digest" in nudge(service, 145_000)  # the next crossing
    assert nudge(service, 146_000) == ""


def test_a_prompt_without_a_figure_keeps_the_last_one(service: InProcessService) -> None:
    # Given a nudge from the harness's figure
    assert "session_digest" in nudge(service, 150_000)

    # When prompts carry no figure (none recorded since a compaction yet), then a small one
    quiet = nudge(service, None, chars=1_000)
    kept = services.state_store().get("default", "s")
    small = nudge(service, 20_000)

    # Then the small estimate neither nudges nor re-arms: the last figure holds until the next one
    assert (quiet, small) == ("", "")
    assert kept is not None and kept.context_tokens == 150_000 and kept.nudged
    assert "session_digest" in nudge(service, 141_000)  # re-armed by the small figure


def test_sessions_without_a_harness_figure_fall_back_to_the_transcript_estimate(
    service: InProcessService,
) -> None:
    assert nudge(service, None, chars=4 * THRESHOLD - 4) == ""
    assert "session_digest" in nudge(service, None, chars=4 * THRESHOLD)


def test_a_digest_written_since_re_arming_suppresses_the_nudge(service: InProcessService) -> None:
    assert "session_digest" in nudge(service, 150_000)
    assert nudge(service, 10_000) == ""  # re-armed
    status, _ = service.digest("s", {"summary": "Froze time in the payment mock; next: run the suite."})
    assert 200 <= status < 300

    assert nudge(service, 160_000) == ""
