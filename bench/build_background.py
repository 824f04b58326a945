"""Build the background term model recovery ranks sentences against (offline; its output ships).

A term is ordinary coding-session talk when many unrelated sessions use it ("test", "file", "fix",
"commit"); a term few sessions use ("refund", "ESR", "chrome.alarms") is what makes a sentence worth
keeping. Two sources, both counted here and shipped as one small file
(``layers/continuity_core/data/background_terms.json``); terms it does not list count as rare:

- ``df``: the real Claude Code transcripts in ``../shared/corpus/`` (the user's and the agent's
  prose, not tool output): in how many sessions each term occurs, for the terms seen in at least
  ``MIN_SESSIONS`` (coding talk that ordinary English rarely says: "repo", "lint", "PR");
- ``zipf``: ordinary English word frequency (the ``wordfreq`` package, a build-time dependency
  only), for the words at or above ``MIN_ZIPF`` (about 15,000): 44 sessions are too few to know
  that "remember", "decide" or "storage" are common words.

Run: ``python -m bench.build_background`` (``make background-model``). The same tokenizer as the
service (``continuity_core.extraction.salience.terms_of``), so what is counted is what is looked up.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from continuity_core.extraction.salience import BACKGROUND_PATH, terms_of

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "claude-code" / "real_projects"
MIN_SESSIONS = 2
MAX_TERMS = 6000
MIN_ZIPF = 3.5
ENGLISH_WORDS = 60_000


def message_texts(record: dict) -> list[str]:
    """The user's and the agent's prose of one transcript line (no tool input or output)."""
    if record.get("type") not in ("user", "assistant") or record.get("isMeta"):
        return []
    content = (record.get("message") or {}).get("content")
    if isinstance(content, str):
        return [content]
    texts = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text":
            texts.append(str(block.get("text") or ""))
    return texts


def session_terms(path: Path) -> set[str]:
    found: set[str] = set()
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            for text in message_texts(record):
                found |= set(terms_of(text))
    return found


def build(corpus: Path = CORPUS) -> dict[str, object]:
    sessions = [p for p in sorted(corpus.rglob("*.jsonl")) if p.stat().st_size > 2000]
    counts: Counter[str] = Counter()
    for path in sessions:
        counts.update(session_terms(path))
    common = [(t, n) for t, n in counts.most_common() if n >= MIN_SESSIONS][:MAX_TERMS]
    return {
        "source": "shared/corpus/claude-code/real_projects (claude-code-log test data, MIT); wordfreq (en)",
        "sessions": len(sessions),
        "min_sessions": MIN_SESSIONS,
        "df": dict(sorted(common)),
        "zipf": english_zipf(),
    }


def english_zipf() -> dict[str, float]:
    """Zipf frequency (log10 per billion words) of common English words, by the term they give."""
    from wordfreq import top_n_list, zipf_frequency

    found: dict[str, float] = {}
    for word in top_n_list("en", ENGLISH_WORDS):
        zipf = zipf_frequency(word, "en")
        if zipf < MIN_ZIPF:
            continue
        for term in terms_of(word):
            found[term] = max(found.get(term, 0.0), round(zipf, 1))
    return dict(sorted(found.items()))


def main() -> None:
    if not CORPUS.is_dir():
        sys.exit(f"no corpus at {CORPUS}")
    model = build()
    BACKGROUND_PATH.write_text(
        json.dumps(model, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n"
    )
    print(f"{len(model['df'])} terms from {model['sessions']} sessions -> {BACKGROUND_PATH}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
