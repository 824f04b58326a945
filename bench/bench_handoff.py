"""Hand-off: what the next session gets when a session hands its work over (issue 23, part 3).

The twelve scripted Claude Code sessions of the recovery suite (``bench/scenarios/main.json``) are
played against a local stack of their own over HTTP, as ``bench/recovery_suite.py`` plays them (the
same prompts, transcript parts, remembers, digests and pauses for periodic checkpoints). Then each
session hands off (``POST /api/sessions/{key}/handoff``, as ``continuity handoff`` does) with a
planted note, branch, commit and three uncommitted paths, and a new session of the project starts in
another harness (Codex, its 7,500-character cap, another session id and no link to the first); a
third new session follows. The session then hands off once more, to a Claude Code session (its
10,000-character cap), and a fourth follows.

- handoff_recall: share of the planted facts found in the receiving block: every current fact of
  the handed-off session (constraints, decisions, open questions, findings, files, remembered facts,
  next steps, the last instruction), scored by the recovery suite's probes, plus the hand-off's own
  note, branch, commit and paths, pooled over both receivers (goal ≥ 0.95);
- handoff_recall_codex / handoff_recall_claude_code: the same per receiving harness;
- handoff_recall_session_facts / handoff_recall_handoff_fields: the two parts of it;
- handoff_marked: share of receiving blocks that open with "## Hand-off from" (goal 1);
- handoff_redelivered: a new session after the receiver given the hand-off again (goal 0);
- handoff_over_cap: receiving blocks longer than the cap they were given (goal 0).

Every missed fact goes to stderr. Run alone with ``python -m bench.bench_handoff``.
"""

from __future__ import annotations

import hashlib
import json
import sys
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass

from bench.recovery_scenarios import CURRENT
from bench.recovery_suite import (
    CLAUDE_CAP,
    CODEX_CAP,
    GEMINI_CAP,
    Player,
    ServiceClient,
    local_stack,
    missing_probes,
    scripts,
)

MARK = "## Hand-off from"


@dataclass(frozen=True)
class Received:
    scenario: str
    receiver: str  # the harness that received it
    block: str
    third: str  # what the next new session got after it (None received: "")
    missed_facts: list[tuple[str, tuple[str, ...]]]  # (fact id, probes missing)
    facts: int
    missed_fields: list[str]
    fields: int


def planted(name: str) -> dict[str, object]:
    """The hand-off's own facts: what ``continuity handoff`` sends for this scenario."""
    commit = hashlib.sha1(name.encode()).hexdigest()
    return {
        "note": f"pick up the {name} work: rerun the slow suite before merging",
        "branch": f"feat/{name}-handoff",
        "commit": commit,
        "uncommitted": [f"src/{name}/wip_{n}.py" for n in range(3)],
        "user": "ana",
        "machine": "ana-laptop",
    }


def field_probes(fields: dict[str, object]) -> dict[str, str]:
    paths = fields["uncommitted"]
    assert isinstance(paths, list)
    return {
        "note": str(fields["note"]),
        "branch": f"`{fields['branch']}`",
        "commit": str(fields["commit"])[:12],
        **{f"path {n}": f"`{path}`" for n, path in enumerate(paths)},
    }


class HandoffPlayer(Player):
    def hand_off(self) -> list[Received]:
        """The session played, handed off to a Codex session (then a third new session starts), and
        handed off again to a Claude Code session: one ``Received`` per receiver."""
        script, client = self.script, self.client
        main = script.main
        self.start("startup", main.session_id, "startup")
        offset, pending = self.prompts(main, script.pauses)
        # The last reply reaches the service (the turn's Stop), then the person hands off.
        stop = {**self.base(main.session_id), "hook_event_name": "Stop"}
        client.hook("stop", {**stop, "transcript": {"offset": offset, "text": pending}})
        fields = planted(script.scenario.name)
        quoted = urllib.parse.quote(main.session_id, safe="")
        received = []
        for harness, cap in (("codex", CODEX_CAP), ("claude-code", CLAUDE_CAP)):
            client.post(f"/api/sessions/{quoted}/handoff", fields, expect=201)
            block = self.start(f"{harness} receiver", f"{main.session_id}-{harness}", "startup", harness, cap)
            third = self.start(
                f"after {harness}", f"{main.session_id}-after-{harness}", "startup", "gemini", GEMINI_CAP
            )
            received.append(self.scored(harness, block, third, fields))
        return received

    def scored(self, receiver: str, block: str, third: str, fields: dict[str, object]) -> Received:
        current = [f for f in self.script.facts if f.status == CURRENT]
        missed = [(f.id, missing) for f in current if (missing := missing_probes(block, f.probes))]
        probes = field_probes(fields)
        missed_fields = [name for name, probe in probes.items() if missing_probes(block, [probe])]
        name = self.script.scenario.name
        return Received(name, receiver, block, third, missed, len(current), missed_fields, len(probes))


def recall(results: list[Received]) -> tuple[float, float, float]:
    """(all planted, the session's facts, the hand-off's fields) found, pooled over ``results``."""
    facts = sum(r.facts for r in results)
    facts_found = facts - sum(len(r.missed_facts) for r in results)
    fields = sum(r.fields for r in results)
    fields_found = fields - sum(len(r.missed_fields) for r in results)
    return (facts_found + fields_found) / (facts + fields), facts_found / facts, fields_found / fields


def figures(received: Iterable[Received], over_cap: int) -> dict[str, float]:
    results = list(received)
    pooled, facts, fields = recall(results)
    out = {
        "handoff_recall": pooled,
        "handoff_recall_session_facts": facts,
        "handoff_recall_handoff_fields": fields,
        "handoff_marked": sum(r.block.startswith(MARK) for r in results) / len(results),
        "handoff_redelivered": float(sum(MARK in r.third for r in results)),
        "handoff_over_cap": float(over_cap),
    }
    for receiver in sorted({r.receiver for r in results}):
        key = receiver.replace("-", "_")
        out[f"handoff_recall_{key}"] = recall([r for r in results if r.receiver == receiver])[0]
    return out


def run() -> dict[str, float]:
    with local_stack() as (url, token):
        client = ServiceClient(url, token)
        players = [HandoffPlayer(client, script) for script in scripts(tag="handoff")]
        received = [r for player in players for r in player.hand_off()]
    over_cap = sum(a.over_cap for player in players for a in player.answers)
    for r in received:
        print(
            f"{r.scenario:<20} {r.receiver:<12} facts {r.facts - len(r.missed_facts):>3}/{r.facts:<3} "
            f"fields {r.fields - len(r.missed_fields)}/{r.fields}  block {len(r.block)} chars",
            file=sys.stderr,
        )
        for fact, missing in r.missed_facts:
            print(f"  missed {fact}: {', '.join(repr(p[:80]) for p in missing)}", file=sys.stderr)
        for name in r.missed_fields:
            print(f"  missed the hand-off's {name}", file=sys.stderr)
    return figures(received, over_cap)


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
