"""The per-session transcript cursor: only new lines, across restarts, capped deltas, rewinds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from continuity_client.hook import harness, transcript, transcript_cursor

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE = harness.CLAUDE_CODE


def fixture_lines() -> list[str]:
    return (FIXTURES / "claude_transcript.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)


def full_text(lines: list[str]) -> str:
    return transcript.render_all(CLAUDE, [json.loads(line) for line in lines])


def test_each_delta_carries_only_what_was_added_and_says_where_it_starts(tmp_path: Path) -> None:
    # Given a transcript that grows between hooks
    lines = fixture_lines()
    path = tmp_path / "t.jsonl"
    path.write_text("".join(lines[:8]), encoding="utf-8")

    # When a hook reads it, then more lines arrive, then another hook reads it
    first = transcript_cursor.next_delta(str(tmp_path / "home"), "s-1", str(path), CLAUDE)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(lines[8:]))
    second = transcript_cursor.next_delta(str(tmp_path / "home"), "s-1", str(path), CLAUDE)

    # Then the second delta starts where the first ended and together they are the whole text
    assert first is not None and second is not None
    assert (first.offset, second.offset) == (0, len(first.text))
    assert first.text + second.text == full_text(lines)
    assert not second.more


def test_the_cursor_survives_a_restart_of_the_client(tmp_path: Path) -> None:
    # Given a first hook process that read the transcript so far
    lines = fixture_lines()
    path, home = tmp_path / "t.jsonl", tmp_path / "home"
    path.write_text("".join(lines[:10]), encoding="utf-8")
    script = (
        "import sys; from continuity_client.hook import transcript_cursor as c;"
        "d = c.next_delta(sys.argv[1], 's-1', sys.argv[2], 'claude-code');"
        "print(d.offset, len(d.text))"
    )
    run = [sys.executable, "-c", script, str(home), str(path)]
    before = subprocess.run(run, capture_output=True, text=True, check=True).stdout.split()

    # When lines are added and a new process reads again
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(lines[10:]))
    after = subprocess.run(run, capture_output=True, text=True, check=True).stdout.split()

    # Then the new process continued from the stored cursor
    assert before[0] == "0"
    assert int(after[0]) == int(before[1]) > 0
    assert int(after[0]) + int(after[1]) == len(full_text(lines))


def test_earlier_lines_are_never_read_again(tmp_path: Path) -> None:
    # Given a cursor past the first lines
    lines = fixture_lines()
    path, home = tmp_path / "t.jsonl", tmp_path / "home"
    path.write_text("".join(lines[:10]), encoding="utf-8")
    transcript_cursor.next_delta(str(home), "s-1", str(path), CLAUDE)

    # When those lines are overwritten with junk of the same length and a line is added
    head = "".join(lines[:10]).encode("utf-8")
    junk = b"".join(b"x" * (len(line) - 1) + b"\n" for line in head.splitlines(keepends=True))
    path.write_bytes(junk + lines[10].encode("utf-8"))
    delta = transcript_cursor.next_delta(str(home), "s-1", str(path), CLAUDE)

    # Then only the new line was rendered
    assert delta is not None
    assert delta.text == full_text(lines[10:11])


def test_a_line_still_being_written_waits_for_its_end(tmp_path: Path) -> None:
    lines = fixture_lines()
    path, home = tmp_path / "t.jsonl", tmp_path / "home"
    path.write_text(lines[3] + lines[5][:40], encoding="utf-8")

    first = transcript_cursor.next_delta(str(home), "s-1", str(path), CLAUDE)
    path.write_text(lines[3] + lines[5], encoding="utf-8")
    second = transcript_cursor.next_delta(str(home), "s-1", str(path), CLAUDE)

    assert first is not None and second is not None
    assert first.text == full_text([lines[3]])
    assert second.text == full_text([lines[5]])


def test_a_delta_is_capped_and_the_rest_follows_in_order(tmp_path: Path) -> None:
    # Given a transcript whose text is far larger than one delta may carry
    lines = fixture_lines()
    path, home = tmp_path / "t.jsonl", tmp_path / "home"
    path.write_text("".join(lines), encoding="utf-8")
    budget = 300

    # When deltas are taken until there is no more
    sizes = []
    text = ""
    while True:
        delta = transcript_cursor.next_delta(str(home), "s-1", str(path), CLAUDE, budget)
        assert delta is not None and delta.offset == len(text)
        sizes.append(transcript_cursor.json_size(delta.text))
        text += delta.text
        if not delta.more:
            break

    # Then none was over the cap, a long record was split, and nothing was lost or repeated
    assert max(sizes) <= budget
    assert len(sizes) > 5
    assert text == full_text(lines)


def test_non_ascii_text_is_capped_by_its_encoded_size(tmp_path: Path) -> None:
    path, home = tmp_path / "t.jsonl", tmp_path / "home"
    record = {"type": "user", "message": {"role": "user", "content": "é😀" * 3000}}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")

    delta = transcript_cursor.next_delta(str(home), "s-1", str(path), CLAUDE, budget=2048)

    assert delta is not None and delta.more
    assert 0 < transcript_cursor.json_size(delta.text) <= 2048


def test_transcript_chars_counts_from_the_last_compaction(tmp_path: Path) -> None:
    lines = fixture_lines()
    path, home = tmp_path / "t.jsonl", tmp_path / "home"
    path.write_text("".join(lines), encoding="utf-8")
    boundary = next(i for i, line in enumerate(lines) if "compact_boundary" in line)

    delta = transcript_cursor.next_delta(str(home), "s-1", str(path), CLAUDE)

    assert delta is not None
    assert delta.chars_since_compact == len(full_text(lines[boundary:]))
    assert delta.chars_since_compact < len(delta.text)


def test_a_rewind_resends_from_the_services_length(tmp_path: Path) -> None:
    # Given everything sent, in several hooks
    lines = fixture_lines()
    path, home = tmp_path / "t.jsonl", tmp_path / "home"
    whole = full_text(lines)
    for end in (5, 9, 14, len(lines)):
        path.write_text("".join(lines[:end]), encoding="utf-8")
        transcript_cursor.next_delta(str(home), "s-1", str(path), CLAUDE)

    for stored in (0, 37, len(full_text(lines[:9])), len(whole) - 5):
        # When the service says it holds only ``stored`` characters
        assert transcript_cursor.rewind(str(home), "s-1", stored)
        delta = transcript_cursor.next_delta(str(home), "s-1", str(path), CLAUDE)

        # Then the next delta starts there and carries exactly the rest
        assert delta is not None
        assert (delta.offset, delta.text) == (stored, whole[stored:])


def test_a_replaced_file_continues_after_what_was_sent(tmp_path: Path) -> None:
    # Given a cursor at the end of a transcript
    lines = fixture_lines()
    path, home = tmp_path / "t.jsonl", tmp_path / "home"
    path.write_text("".join(lines), encoding="utf-8")
    first = transcript_cursor.next_delta(str(home), "s-1", str(path), CLAUDE)

    # When the file is replaced by a shorter one
    path.write_text("".join(lines[3:6]), encoding="utf-8")
    second = transcript_cursor.next_delta(str(home), "s-1", str(path), CLAUDE)

    # Then its text is appended after what was sent, never over it
    assert first is not None and second is not None
    assert second.offset == len(first.text)
    assert second.text == full_text(lines[3:6])
    assert second.chars_since_compact == len(second.text)


def test_without_a_file_there_is_no_delta(tmp_path: Path) -> None:
    assert transcript_cursor.next_delta(str(tmp_path), "s-1", str(tmp_path / "missing.jsonl"), CLAUDE) is None


def test_gemini_legacy_json_is_read_once_a_message_is_settled(tmp_path: Path) -> None:
    path, home = tmp_path / "session-1.json", tmp_path / "home"
    user = {"id": "u1", "type": "user", "content": "hello"}
    answer = {"id": "m1", "type": "gemini", "content": "hi"}
    path.write_text(json.dumps({"sessionId": "g", "messages": [user, answer]}), encoding="utf-8")

    first = transcript_cursor.next_delta(str(home), "g", str(path), harness.GEMINI)
    final = transcript_cursor.next_delta(str(home), "g", str(path), harness.GEMINI, final=True)

    assert first is not None and final is not None
    assert first.text == "User: hello\n\n"
    assert (final.offset, final.text) == (len(first.text), "Assistant: hi\n\n")
