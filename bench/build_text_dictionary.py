"""Build the preset dictionary the service compresses long texts with (offline; its output ships).

DynamoDB bills an item write per started KB, and a transcript append (~8,000 characters), a
checkpoint's body and an injected block are written compressed. zlib alone starts each text with an
empty window; a preset dictionary (``zdict``) of ordinary coding-session text gives it the words,
tool lines and phrasing such a text repeats from its first byte (docs/COST.md).

The dictionary is 32 KiB (deflate's whole window) of 256-character pieces of real Claude Code
sessions (``../shared/corpus/``), rendered by the client exactly as it sends a transcript
(``continuity_client.hook.transcript.render_all``), shuffled with a fixed seed. Two projects of the
corpus are held out (``HELD_OUT``): the printed figures compare zlib alone with the dictionary on
their text, which the dictionary never saw, and on the cost bench's own transcript text.

Run: ``python -m bench.build_text_dictionary`` (``make text-dictionary``). The file is frozen once
shipped: stored items name the dictionary they were written with (``dynamo_items.TEXT_DICTIONARY_V1``),
so a new dictionary is a new file and a new marker, never an edit of this one's output.
"""

from __future__ import annotations

import json
import random
import sys
import zlib
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "claude-code" / "real_projects"
DATA = Path(__file__).resolve().parents[1] / "layers" / "continuity_core" / "data"
OUTPUT = DATA / "text_dictionary_v1.json"
HELD_OUT = ("-Users-dain-workspace-coderabbit-review-helper", "-Users-dain-workspace-danieldemmel-me-next")
DICTIONARY_BYTES = 32 * 1024  # deflate's window: a longer dictionary is never referenced
PIECE_CHARS = 256
SEED = 1
SAMPLE_CHARS = 8_000  # what one append of the cost bench carries


def rendered_sessions(corpus: Path = CORPUS) -> dict[Path, str]:
    """Each session file's readable text, as the client sends it (sub-agents' files included)."""
    from continuity_client.hook.transcript import render_all

    found: dict[Path, str] = {}
    for path in sorted(corpus.rglob("*.jsonl")):
        records = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
        text = render_all("claude-code", records)
        if len(text) > 2000:
            found[path] = text
    return found


def held_out(path: Path) -> bool:
    return any(parent.name in HELD_OUT for parent in path.parents)


def pieces(texts: list[str], size: int) -> list[str]:
    return [text[at : at + size] for text in texts for at in range(0, len(text) - size + 1, size)]


def build_dictionary(texts: list[str]) -> str:
    """32 KiB of shuffled pieces: deflate finds a phrase wherever it is in the window. A piece the
    service's redaction would change is left out: nothing secret-looking ships in the layer."""
    from continuity_core.redaction import redact

    chosen = [piece for piece in pieces(texts, PIECE_CHARS) if redact(piece) == piece]
    random.Random(SEED).shuffle(chosen)
    text, size = [], 0
    for piece in chosen:
        size += len(piece.encode("utf-8"))
        if size > DICTIONARY_BYTES:
            break
        text.append(piece)
    return "".join(text)


def compressed_sizes(samples: list[str], dictionary: bytes | None) -> list[int]:
    sizes = []
    for sample in samples:
        if dictionary is None:
            sizes.append(len(zlib.compress(sample.encode("utf-8"), 6)))
        else:
            packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, dictionary)
            sizes.append(1 + len(packer.compress(sample.encode("utf-8")) + packer.flush()))
    return sizes


def report(label: str, samples: list[str], dictionary: bytes) -> str:
    before, after = compressed_sizes(samples, None), compressed_sizes(samples, dictionary)
    mean_before, mean_after = sum(before) / len(before), sum(after) / len(after)
    return (
        f"{label}: {len(samples)} texts of {SAMPLE_CHARS:,} characters, zlib {mean_before:,.0f} bytes, "
        f"with the dictionary {mean_after:,.0f} ({mean_after / mean_before - 1:+.1%})"
    )


def main() -> None:
    if not CORPUS.is_dir():
        sys.exit(f"no corpus at {CORPUS}")
    from bench.bench_cost import SESSION_PROMPTS, transcript_text

    sessions = rendered_sessions()
    training = [text for path, text in sessions.items() if not held_out(path)]
    dictionary = build_dictionary(training)
    OUTPUT.write_text(
        json.dumps(
            {
                "source": "shared/corpus/claude-code/real_projects (claude-code-log test data, MIT), "
                "rendered by continuity_client.hook.transcript; bench/build_text_dictionary.py",
                "held_out": list(HELD_OUT),
                "text": dictionary,
            },
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    packed = dictionary.encode("utf-8")
    held = pieces([text for path, text in sessions.items() if held_out(path)], SAMPLE_CHARS)
    bench = [transcript_text(n) for n in range(1, SESSION_PROMPTS + 1)]
    print(f"{len(packed):,} bytes from {len(training)} sessions -> {OUTPUT}")
    print(report("held-out projects", held, packed))
    print(report("cost bench transcript", bench, packed))


if __name__ == "__main__":
    main()
