"""The context size each harness records itself, read by the transcript reader on the hook path."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from continuity_client.hook import context_usage, harness, transcript, transcript_cursor

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "real_projects"
# Real Claude Code sessions (2.0.55 and 2.0.5), tool-heavy, with thinking blocks.
DEEP_MANIFEST = "-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl"
ME_NEXT = "-Users-dain-workspace-danieldemmel-me-next/9e953218-585f-4692-89df-9e0747a31c68.jsonl"

needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the real transcript corpus is not here ({CORPUS})"
)


def figure(harness: str, records: list) -> int | None:
    state: dict = {}
    transcript.render_all(harness, records, state)
    return context_usage.context_tokens(state)


def claude_usage(record: object) -> int | None:
    """What the reader should take from a line: a main-chain assistant entry's input-side tokens."""
    if not isinstance(record, dict) or record.get("type") != "assistant" or record.get("isSidechain"):
        return None
    usage = (record.get("message") or {}).get("usage") or {}
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum(usage.get(key) or 0 for key in keys) or None


def parse(line: bytes) -> object:
    try:
        return json.loads(line)
    except ValueError:
        return None


# ---- Claude Code ------------------------------------------------------------------------------


@needs_corpus
def test_the_last_main_chain_assistant_usage_is_the_context() -> None:
    lines = (CORPUS / DEEP_MANIFEST).read_bytes().splitlines()

    # input 3 + cache creation 149 + cache read 134,124 on the session's last assistant entry
    assert figure(harness.CLAUDE_CODE, [parse(line) for line in lines]) == 134_276


@needs_corpus
def test_sub_agent_transcripts_give_no_context_of_ours() -> None:
    files = sorted(CORPUS.glob("**/agent-*.jsonl"))
    assert files
    for path in files:
        records = [parse(line) for line in path.read_bytes().splitlines() if line.strip()]
        assert figure(harness.CLAUDE_CODE, records) is None, path.name


@needs_corpus
def test_the_cursor_reports_the_figure_as_of_each_cut_of_a_real_transcript(tmp_path: Path) -> None:
    # Given a real transcript written in arbitrary pieces (cuts inside lines too)
    data = (CORPUS / ME_NEXT).read_bytes()
    cuts = [*sorted(random.Random(7).sample(range(1, len(data)), 40)), len(data)]
    path = tmp_path / "session.jsonl"
    home = str(tmp_path / "home")
    written = 0
    for cut in cuts:
        with path.open("ab") as handle:
            handle.write(data[written:cut])
        written = cut

        # When a hook reads what was added
        delta = transcript_cursor.next_delta(home, "s", str(path), harness.CLAUDE_CODE)

        # Then it reports the usage of the last complete main-chain assistant line before the cut
        complete = data[:cut][: data[:cut].rfind(b"\n") + 1]
        expected = None
        for line in complete.splitlines():
            expected = claude_usage(parse(line)) or expected
        assert delta is not None and not delta.more
        assert delta.context_tokens == expected, cut
    assert delta is not None and delta.context_tokens == 78_284


def test_a_compaction_forgets_the_figure_until_the_next_response() -> None:
    records = [json.loads(line) for line in (FIXTURES / "claude_transcript.jsonl").read_text().splitlines()]
    boundary = next(i for i, r in enumerate(records) if r.get("subtype") == "compact_boundary")
    after = {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": "Resuming."}],
            "usage": {
                "input_tokens": 4,
                "cache_creation_input_tokens": 9_000,
                "cache_read_input_tokens": 3_000,
                "output_tokens": 50,
            },
        },
    }

    assert figure(harness.CLAUDE_CODE, records[:5]) == 12_010  # input 10 + 12,000 cache read
    assert figure(harness.CLAUDE_CODE, records[:boundary]) == 10  # the later entries: input 10 only
    assert figure(harness.CLAUDE_CODE, records) is None
    assert figure(harness.CLAUDE_CODE, [*records, after]) == 12_004


def test_synthetic_and_sidechain_entries_tell_nothing() -> None:
    main = {"type": "assistant", "message": {"usage": {"input_tokens": 5, "cache_read_input_tokens": 60_000}}}
    synthetic = {
        "type": "assistant",
        "isApiErrorMessage": True,
        "message": {
            "model": "<synthetic>",
            "usage": {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        },
    }
    sidechain = {**main, "isSidechain": True, "message": {"usage": {"input_tokens": 90_000}}}

    assert figure(harness.CLAUDE_CODE, [main, synthetic, sidechain]) == 60_005


# ---- Codex --------------------------------------------------------------------------------------


def codex_tokens(total: int, window: int = 272_000) -> dict:
    last = {
        "input_tokens": total - 2_000,
        "cached_input_tokens": total - 9_000,
        "output_tokens": 2_000,
        "reasoning_output_tokens": 700,
        "total_tokens": total,
    }
    return {
        "timestamp": "2025-11-18T21:55:56.513Z",
        "type": "event_msg",
        "payload": {
            "type": "token_count",
            "info": {
                "total_token_usage": {**last, "total_tokens": 3 * total},
                "last_token_usage": last,
                "model_context_window": window,
            },
            "rate_limits": {"primary": {"used_percent": 7.0, "window_minutes": 300}},
        },
    }


def test_codex_token_count_events_give_the_last_responses_total() -> None:
    heartbeat = {"type": "event_msg", "payload": {"type": "token_count", "info": None, "rate_limits": {}}}
    compacted = {"type": "compacted", "payload": {"message": "Summary of the work so far."}}
    older = {
        "type": "event_msg",
        "payload": {
            "type": "token_count",
            "info": {"last_token_usage": {"input_tokens": 30_000, "output_tokens": 500}},
        },
    }

    assert figure(harness.CODEX, [heartbeat]) is None
    assert figure(harness.CODEX, [codex_tokens(180_500), heartbeat]) == 180_500
    assert figure(harness.CODEX, [codex_tokens(180_500), compacted]) is None
    assert figure(harness.CODEX, [codex_tokens(180_500), compacted, codex_tokens(21_000)]) == 21_000
    assert figure(harness.CODEX, [older]) == 30_500  # no total_tokens: input + output


def test_a_codex_rollout_read_by_the_cursor_reports_its_figure(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout-2025-11-18T21-55-53-019a9776.jsonl"
    user = {
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "fix the build"}],
        },
    }
    rollout.write_text("\n".join(json.dumps(r) for r in (user, codex_tokens(64_000))) + "\n")

    delta = transcript_cursor.next_delta(str(tmp_path / "home"), "c", str(rollout), harness.CODEX)

    assert delta is not None and delta.context_tokens == 64_000 and delta.text == "User: fix the build\n\n"


# ---- Gemini CLI ---------------------------------------------------------------------------------


def gemini_message(ident: str, tokens: dict | None) -> dict:
    return {
        "id": ident,
        "timestamp": "2025-12-01T10:00:00Z",
        "type": "gemini",
        "content": "Done.",
        "model": "gemini-2.5-pro",
        "tokens": tokens,
    }


GEMINI_TOKENS = {
    "input": 51_234,
    "output": 300,
    "cached": 40_000,
    "thoughts": 120,
    "tool": 0,
    "total": 51_654,
}


def test_gemini_messages_give_their_prompt_token_count() -> None:
    header = {"sessionId": "g", "projectHash": "p", "startTime": "2025-12-01T10:00:00Z"}
    user = {"id": "u1", "type": "user", "content": [{"text": "add a test"}]}
    rewritten = {"$set": {"messages": [user, gemini_message("m1", GEMINI_TOKENS)]}}

    # The message is written first without its usage, then again once the usage arrives
    records = [header, user, gemini_message("m1", None), gemini_message("m1", GEMINI_TOKENS)]
    assert figure(harness.GEMINI, records[:3]) is None
    assert figure(harness.GEMINI, records) == 51_234
    assert figure(harness.GEMINI, [*records, {"$set": {"lastUpdated": "x"}}]) == 51_234
    assert figure(harness.GEMINI, [*records, rewritten]) is None  # a compression rewrote the history


def test_gemini_older_json_file_reports_the_settled_messages_figure(tmp_path: Path) -> None:
    chat = tmp_path / "session-2025-12-01T10-00-abcd1234.json"
    messages = [
        {"id": "u1", "type": "user", "content": "add a test"},
        gemini_message("m1", GEMINI_TOKENS),
        gemini_message("m2", {**GEMINI_TOKENS, "input": 60_000}),  # still being written
    ]
    chat.write_text(json.dumps({"sessionId": "g", "projectHash": "p", "messages": messages}))
    home = str(tmp_path / "home")

    delta = transcript_cursor.next_delta(home, "g", str(chat), harness.GEMINI)
    final = transcript_cursor.next_delta(home, "g", str(chat), harness.GEMINI, final=True)

    assert delta is not None and delta.context_tokens == 51_234
    assert final is not None and final.context_tokens == 60_000


# ---- the cursor ---------------------------------------------------------------------------------


def test_a_rewind_regenerates_the_figure_with_the_text(tmp_path: Path) -> None:
    # Given a transcript read to its end
    lines = (FIXTURES / "claude_transcript.jsonl").read_text().splitlines(keepends=True)
    boundary = next(i for i, line in enumerate(lines) if "compact_boundary" in line)
    path = tmp_path / "session.jsonl"
    path.write_text("".join(lines[:boundary]))
    home = str(tmp_path / "home")
    first = transcript_cursor.next_delta(home, "s", str(path), harness.CLAUDE_CODE)
    assert first is not None and first.context_tokens == 10

    # When the service holds less (a 409: 40 characters, inside the first prompt) and the hook
    # rewinds and reads again
    transcript_cursor.rewind(home, "s", 40)
    rewound = transcript_cursor.peek(home, "s")
    again = transcript_cursor.next_delta(home, "s", str(path), harness.CLAUDE_CODE)

    # Then the figure follows the text: none before the first response, the same at the end
    assert rewound is not None and context_usage.context_tokens(rewound["state"]) is None
    assert again is not None and again.offset == 40 and again.context_tokens == 10
    assert again.text == first.text[40:]


def test_a_replaced_file_starts_without_a_figure(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    old.write_text(json.dumps({"type": "assistant", "message": {"usage": {"input_tokens": 90_000}}}) + "\n")
    new.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}) + "\n")

    before = transcript_cursor.next_delta(home, "s", str(old), harness.CLAUDE_CODE)
    after = transcript_cursor.next_delta(home, "s", str(new), harness.CLAUDE_CODE)

    assert before is not None and before.context_tokens == 90_000
    assert after is not None and after.context_tokens is None and after.text == "User: hi\n\n"
