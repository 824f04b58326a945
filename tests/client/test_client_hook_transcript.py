"""Hooks carry the transcript's new part: appended in order, mended after a gap, capped in size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_client.hook import current, delta, harness, transcript
from tests.client.client_support import log_text, run_hook, spooled
from tests.client.fake_continuity_service import ERROR_500, OK, FakeService

FIXTURES = Path(__file__).parent / "fixtures"
SESSION = "5d3c2a4e-8f1b-4c7a-9e2d-1a2b3c4d5e6f"


def fixture_lines() -> list[str]:
    return (FIXTURES / "claude_transcript.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)


def readable(lines: list[str]) -> str:
    return transcript.render_all(harness.CLAUDE_CODE, [json.loads(line) for line in lines])


@pytest.fixture
def transcript_file(tmp_path: Path) -> Path:
    return tmp_path / "projects" / f"{SESSION}.jsonl"


def prompt(path: Path, text: str = "go on") -> dict:
    return {
        "session_id": SESSION,
        "transcript_path": str(path),
        "cwd": str(path.parent),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def grow(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(lines))


def test_a_prompt_hook_sends_the_new_text_with_its_offset_and_the_context_size(
    transcript_file: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given a transcript of a session that compacted once
    lines = fixture_lines()
    grow(transcript_file, lines)

    # When the user submits a prompt
    run_hook(["user-prompt-submit"], prompt(transcript_file), client_env)

    # Then the hook carried the readable text from offset 0 and the size since the compaction
    body = service.requests[-1].body
    assert body["transcript"] == {"offset": 0, "text": readable(lines)}
    boundary = next(i for i, line in enumerate(lines) if "compact_boundary" in line)
    assert body["transcript_chars"] == len(readable(lines[boundary:]))
    assert service.transcripts[SESSION] == readable(lines)


def test_a_session_sends_each_character_once(
    transcript_file: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given a session whose transcript grows between its hooks
    lines = fixture_lines()
    written = 0
    for end, event in ((4, "user-prompt-submit"), (12, "user-prompt-submit"), (17, "pre-compaction")):
        grow(transcript_file, lines[written:end])
        written = end
        run_hook([event], prompt(transcript_file), client_env)
    grow(transcript_file, lines[written:])
    run_hook(["session-end"], {**prompt(transcript_file), "reason": "exit"}, client_env)

    # Then the service holds the whole text, and received no more than it holds
    final = readable(lines)
    assert service.transcripts[SESSION] == final
    assert service.transcript_bytes_received == len(final.encode("utf-8"))
    assert [r.body["transcript"]["offset"] for r in service.requests] == sorted(
        r.body["transcript"]["offset"] for r in service.requests
    )


def test_a_gap_is_answered_409_and_the_hook_resends_from_the_stored_length(
    transcript_file: Path, service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a session whose text the service holds only in part (it lost an append)
    lines = fixture_lines()
    grow(transcript_file, lines[:10])
    run_hook(["user-prompt-submit"], prompt(transcript_file, "first"), client_env)
    service.transcripts[SESSION] = service.transcripts[SESSION][:50]
    grow(transcript_file, lines[10:])

    # When the next prompt's delta starts past what the service holds
    run_hook(["user-prompt-submit"], prompt(transcript_file, "second"), client_env)

    # Then the service answered 409 once, and the re-post (same key) carried the text from 50
    second = [r for r in service.requests if r.body.get("prompt") == "second"]
    assert service.gaps == 1 and len(second) == 2
    assert second[1].body["transcript"]["offset"] == 50
    assert second[0].key == second[1].key
    assert service.transcripts[SESSION] == readable(lines)
    # And the prompt counted once
    assert sum(1 for r in service.effects if r.body.get("prompt") == "second") == 1
    assert "resending from there" in log_text(home)


def test_spooled_hooks_replay_their_deltas_in_order(
    transcript_file: Path, service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given two prompts while the service fails: both spooled with their deltas
    lines = fixture_lines()
    service.mode = ERROR_500
    grow(transcript_file, lines[:6])
    run_hook(["user-prompt-submit"], prompt(transcript_file, "one"), client_env)
    grow(transcript_file, lines[6:12])
    run_hook(["user-prompt-submit"], prompt(transcript_file, "two"), client_env)
    assert [r["body"]["transcript"]["offset"] for r in spooled(home)] == [0, len(readable(lines[:6]))]

    # When the service is back and the next prompt comes
    service.mode = OK
    grow(transcript_file, lines[12:])
    run_hook(["user-prompt-submit"], prompt(transcript_file, "three"), client_env)

    # Then the spooled deltas arrived first, in order, without a gap, and the whole text is there
    assert service.gaps == 0
    assert service.transcripts[SESSION] == readable(lines)
    assert spooled(home) == []


def test_a_lost_spooled_delta_is_mended_by_the_next_hook(
    transcript_file: Path, service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a spooled hook whose record was lost (the spool was cleared)
    lines = fixture_lines()
    service.mode = ERROR_500
    grow(transcript_file, lines[:8])
    run_hook(["user-prompt-submit"], prompt(transcript_file, "lost"), client_env)
    for path in (home / "spool").glob("*.jsonl"):
        path.unlink()

    # When the service is back and the next prompt comes
    service.mode = OK
    grow(transcript_file, lines[8:])
    run_hook(["user-prompt-submit"], prompt(transcript_file, "next"), client_env)

    # Then the gap was answered and mended within that hook
    assert service.gaps == 1
    assert service.transcripts[SESSION] == readable(lines)


def test_a_huge_transcript_goes_in_capped_requests_within_one_hook(
    transcript_file: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given a transcript whose readable text is ~1.2 MB (a session the client joins late)
    messages = [
        {"type": "user", "message": {"role": "user", "content": f"{n:04d} " + "word " * 2400}}
        for n in range(100)
    ]
    grow(transcript_file, [json.dumps(m) + "\n" for m in messages])
    final = transcript.render_all(harness.CLAUDE_CODE, messages)
    env = {**client_env, "CONTINUITY_HOOK_TIMEOUT_S": "10"}

    # When one prompt hook runs
    run_hook(["user-prompt-submit"], prompt(transcript_file), env)

    # Then every request stayed well under 1 MB, and the follow-ups delivered everything
    sizes = [len(json.dumps(r.body)) for r in service.requests]
    assert len(sizes) >= 5
    assert max(sizes) < delta.MAX_BODY_BYTES
    assert service.transcripts[SESSION] == final
    assert len(service.effects) == 1  # follow-ups repeat the hook's key: one prompt


def test_a_hook_without_a_readable_transcript_still_posts(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    run_hook(["user-prompt-submit"], prompt(tmp_path / "missing.jsonl"), client_env)

    body = service.requests[-1].body
    assert "transcript" not in body and "transcript_chars" not in body
    assert body["prompt"] == "go on"


def test_session_start_carries_no_transcript(
    transcript_file: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    grow(transcript_file, fixture_lines())

    run_hook(["session-start"], {**prompt(transcript_file), "source": "resume"}, client_env)

    assert "transcript" not in service.requests[-1].body


def test_every_hook_notes_the_projects_current_session(
    transcript_file: Path, service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    grow(transcript_file, fixture_lines()[:3])
    project = current.realpath(str(transcript_file.parent))

    run_hook(["session-start"], {**prompt(transcript_file), "source": "startup"}, client_env)
    run_hook(
        ["session-start"], {**prompt(transcript_file), "session_id": "next", "source": "clear"}, client_env
    )

    seen = current.read(str(home), project)
    assert seen is not None
    assert (seen["session_id"], seen["harness"]) == ("next", "claude-code")


def test_a_replayed_hook_answered_409_counts_as_delivered_and_the_live_hook_mends(
    transcript_file: Path, service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given two spooled prompts, the first of which was lost from the spool
    lines = fixture_lines()
    service.mode = ERROR_500
    grow(transcript_file, lines[:6])
    run_hook(["user-prompt-submit"], prompt(transcript_file, "lost"), client_env)
    grow(transcript_file, lines[6:12])
    run_hook(["user-prompt-submit"], prompt(transcript_file, "kept"), client_env)
    (spool_file,) = (home / "spool").glob("*.jsonl")
    spool_file.write_text(spool_file.read_text().splitlines(keepends=True)[1])

    # When the service is back and the next prompt comes
    service.mode = OK
    grow(transcript_file, lines[12:])
    run_hook(["user-prompt-submit"], prompt(transcript_file, "live"), client_env)

    # Then the replay's gap did not block the spool, its prompt counted, and the text is whole
    assert spooled(home) == []
    assert {r.body.get("prompt") for r in service.effects} >= {"kept", "live"}
    assert service.gaps == 2
    assert service.transcripts[SESSION] == readable(lines)
