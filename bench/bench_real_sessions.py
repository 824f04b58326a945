"""Real sessions: twelve real Claude Code transcripts (``<repo>/../shared/real_sessions``, or
``$CONTINUITY_REAL_SESSIONS``) replayed through the client's installed Claude Code hooks on a local
stack of their own, each compacted at its end (or at its real compaction), the block after it scored
by the set's own ``score.py`` against facts written by reading the transcripts
(``bench/real_sessions.py``; blocks in ``build/real_sessions/``).

- real_sessions_recall: must facts present in the blocks ÷ must facts, over all sessions (goal ≥ 0.85);
- real_sessions_stale_current: ``stale`` facts shown as current (goal 0);
- real_sessions_unsupported_share: block lines no fact's needles hold on ÷ content lines, a rough
  measure of noise (goal ≤ 0.25);
- real_sessions_block_chars_max: the largest block (goal ≤ 4000);
- real_sessions_brought_back / _of: after the two real compactions, the must facts Claude Code's
  own summary dropped that the block carries / all of those;
- real_sessions_recall_<id>: each session's recall, for diagnosis.

A per-session table (with the missed facts' ids) goes to stderr. Without the set, the bench skips
and says why (no figures).
"""

from __future__ import annotations

import sys

from bench import real_sessions


def run() -> dict[str, float]:
    reason = real_sessions.absent()
    if reason:
        print(f"real sessions: skipped: {reason}", file=sys.stderr)
        return {}
    return real_sessions.bench()


if __name__ == "__main__":
    for metric, value in sorted(run().items()):
        print(f"{metric:<36} {value:.3f}")
