"""Each harness's own compaction summary reaches the service as a ``[Compact summary]`` block."""

from __future__ import annotations

from continuity_client.hook import harness, transcript

# codex-rs/core/templates/compact/summary_prefix.md, which Codex's local compaction puts first
PREFIX = (
    "Another language model started to solve this problem and produced a summary of its thinking process. "
    "You also have access to the state of the tools that were used by that language model. Use this to build "
    "on the work that has already been done and avoid duplicating work. Here is the summary produced by the "
    "other language model, use the information in this summary to  assist with your own analysis:"
)


def user_message(text: str) -> dict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def test_a_codex_local_compaction_gives_its_summary_without_the_boilerplate() -> None:
    record = {
        "type": "compacted",
        "payload": {
            "message": f"{PREFIX}\nThe tokenizer splits on NBSP now; next: docs.",
            "replacement_history": [user_message("fix the tokenizer")],
        },
    }

    rendered = transcript.render(harness.CODEX, record, {})

    assert rendered.boundary
    assert rendered.text == (
        "--- context compacted ---\n\n[Compact summary] The tokenizer splits on NBSP now; next: docs.\n\n"
    )


def test_a_codex_compaction_without_a_message_finds_the_summary_in_its_replacement_history() -> None:
    history = [user_message("fix the tokenizer"), user_message(f"{PREFIX}\nNBSP handled.")]
    record = {"type": "compacted", "payload": {"message": "", "replacement_history": history}}

    assert transcript.render(harness.CODEX, record, {}).text == (
        "--- context compacted ---\n\n[Compact summary] NBSP handled.\n\n"
    )


def test_a_codex_remote_compaction_is_marked_but_has_no_readable_summary() -> None:
    history = [user_message("fix the tokenizer"), {"type": "compaction", "encrypted_content": "gAAAAB..."}]
    record = {"type": "compacted", "payload": {"message": "", "replacement_history": history}}

    rendered = transcript.render(harness.CODEX, record, {})

    assert rendered.boundary
    assert rendered.text == "--- context compacted ---\n\n"
