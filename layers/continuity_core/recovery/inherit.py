"""Sub-agent context inheritance: find the parent session, hand its context to the sub-agent.

Parent detection, first match wins:

1. an explicit ``parent_session_key`` (OpenCode's ``parentID``);
2. an OpenClaw key ``agent:{id}:subagent:{uuid}`` → ``agent:{id}:main``;
3. a Claude Code or Codex payload with ``agent_id`` (the harness's sub-agent id): its ``session_id``
   when that session is known here (both harnesses' SubagentStart carry the parent's session id:
   Codex shares its root session id with the sub-agents it spawns), else the most recently updated
   other session of the same project and harness that is not itself a sub-agent's (the tenant is
   always the scope);
4. anything else: no parent, no block.

The harness's sub-agent id is lineage metadata only; storage is always keyed by the tenant's agent id.
The block (``## Inherited from Parent Session``) holds the parent's key, its active constraints and
decisions (from the parent's rolling digest, so they survive its later checkpoints and compactions,
plus rules in the prompts it has not checkpointed yet), its latest checkpoint digest and the last
``tailChars`` of its transcript since that checkpoint (slash commands and compaction boilerplate
left out). It is omitted when the parent has neither a checkpoint nor a transcript yet, and sized to
the budget the caller gives (what the harness's cap leaves after the recovery reservation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from continuity_core.checkpoints.passive_digest import format_duration
from continuity_core.checkpoints.ports import CheckpointStore
from continuity_core.checkpoints.rolling_inputs import is_users_words
from continuity_core.extraction.sticky import Role, extract
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.names import SUBAGENT_KEY_PART
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.hooks import Hook
from continuity_core.models.session_digest import FactKind
from continuity_core.models.transcripts import TranscriptHead
from continuity_core.recovery.briefing_lines import CHECKS, DECISIONS, FILES, OPEN, WHERE
from continuity_core.recovery.fit import MAX_INJECTION_CHARS, fit
from continuity_core.recovery.ports import InheritedBlock
from continuity_core.recovery.recovery_block import render_digest
from continuity_core.transcripts.layout import tail_since
from continuity_core.transcripts.ports import TranscriptStore

INHERIT_HEADING = "## Inherited from Parent Session"
CLAUDE_CODE = "claude-code"
CODEX = "codex"
# Harnesses whose sub-agent hooks carry the parent's session id next to the sub-agent's agent_id.
SHARED_SESSION_HARNESSES = frozenset({CLAUDE_CODE, CODEX})
OPENCLAW_SUBAGENT = re.compile(r"agent:(?P<agent>[^:]+):subagent:.+")
MAX_CONSTRAINTS = 12
MAX_DECISIONS = 8
CONSTRAINT_CHARS = 200
DIGEST_CHARS = 2000
# The parent's briefing a sub-agent gets: what stands, was decided, is open, was checked, in play.
PARENT_SECTIONS = (WHERE, DECISIONS, OPEN, CHECKS, FILES)
# Room left for the other shared sections (the ledger line) and separators.
SHARED_HEADROOM = 500
RECENT_CANDIDATES = 10


class ParentSource(StrEnum):
    EXPLICIT = "explicit parent_session_key"
    OPENCLAW = "OpenClaw session key"
    CLAUDE_CODE_SESSION = "Claude Code session id"
    CODEX_SESSION = "Codex session id"
    CLAUDE_CODE_RECENT = "most recent session of the project"


@dataclass(frozen=True)
class Parent:
    session_key: str
    source: ParentSource
    head: TranscriptHead | None = None
    checkpoint: Checkpoint | None = None
    looked_up: bool = False  # head and checkpoint already read (None means: there is none)


def find_parent(
    agent_id: str, hook: Hook, transcripts: TranscriptStore, checkpoints: CheckpointStore
) -> Parent | None:
    own = hook.session_key
    if hook.parent_session_key and hook.parent_session_key != own:
        return Parent(hook.parent_session_key, ParentSource.EXPLICIT)
    openclaw = OPENCLAW_SUBAGENT.fullmatch(own)
    if openclaw:
        return Parent(f"agent:{openclaw['agent']}:main", ParentSource.OPENCLAW)
    if hook.subagent_id and hook.harness in SHARED_SESSION_HARNESSES:
        head = transcripts.assembled_head(agent_id, own, consistent=True)
        checkpoint = checkpoints.latest_for_session(agent_id, own)
        if (head is not None and head.length) or checkpoint is not None:
            source = ParentSource.CODEX_SESSION if hook.harness == CODEX else ParentSource.CLAUDE_CODE_SESSION
            return Parent(own, source, head, checkpoint, looked_up=True)
        if hook.project_normalized:
            recent, _ = transcripts.recent_sessions(
                agent_id, hook.project_normalized, RECENT_CANDIDATES, harness=hook.harness
            )
            # The index lists by start; the summaries carry the state's last activity.
            others = [s for s in recent if s.session_key != own and SUBAGENT_KEY_PART not in s.session_key]
            other = max(others, key=lambda s: s.updated_at, default=None)
            if other is not None:
                return Parent(other.session_key, ParentSource.CLAUDE_CODE_RECENT)
    return None


def constraints_from(texts: list[str], limit: int = MAX_CONSTRAINTS) -> list[str]:
    """The latest distinct sentences that read as rules, as the rolling digest reads them."""
    found: dict[str, None] = {}
    for text in texts:
        for candidate in extract(text, Role.USER):
            if candidate.kind is FactKind.CONSTRAINT:
                rule = fit(candidate.text, CONSTRAINT_CHARS)
                found.pop(rule, None)
                found[rule] = None
    return list(found)[-limit:]


def render_inherited(
    parent: Parent,
    checkpoint: Checkpoint | None,
    head: TranscriptHead | None,
    constraints: list[str],
    tail_chars: int,
    budget: int,
    now: datetime,
    decisions: list[str] | None = None,
) -> str | None:
    """The block, at most ``budget`` characters; the transcript tail gives way first (from its start)."""
    if checkpoint is None and (head is None or head.length == 0):
        return None
    about = head or checkpoint
    assert about is not None
    where = ", ".join(x for x in (about.harness, about.project or about.project_normalized) if x)
    active = f"; last active {format_duration(now - head.updated_at)} ago" if head else ""
    lines = [
        INHERIT_HEADING,
        f"Parent session: `{parent.session_key}` ({where}){active}; found by {parent.source}.",
    ]
    if constraints:
        lines += ["", "### Active Constraints", *(f"- {c}" for c in constraints)]
    briefing = checkpoint.session_digest if checkpoint is not None else None
    if decisions and (briefing is None or briefing.empty):
        lines += ["", "### Parent's Decisions", *(f"- {d}" for d in decisions)]
    if checkpoint is not None:
        age = format_duration(now - checkpoint.created_at)
        title = f"### Parent's Latest Checkpoint ({checkpoint.trigger.value}, {age} ago)"
        shown = ""
        if briefing is not None and not briefing.empty:
            # The parent's briefing, as its own recovery block shows it (its rules are above).
            roots = [r for r in (checkpoint.project, checkpoint.project_normalized) if r]
            shown = render_digest(briefing, title, DIGEST_CHARS, roots, titles=PARENT_SECTIONS)[0]
        first, _, rest = shown.partition("\n")
        if rest.strip():
            lines += ["", first, _demote(rest).strip()]
        else:  # no briefing, or none of its sections has anything: the checkpoint as written
            lines += ["", title, fit(_demote(checkpoint.digest), DIGEST_CHARS)]
    text = "\n".join(lines)
    if head is None or tail_chars <= 0:
        return fit(text, budget)
    since = head.length_at(checkpoint.created_at) if checkpoint else 0
    heading = (
        "\n\n### Parent Transcript Since That Checkpoint\n" if checkpoint else "\n\n### Parent Transcript\n"
    )
    room = min(tail_chars, budget - len(text) - len(heading) - 1)
    tail, cut = tail_since(head.inline, head.flushed, since, max(room, 0))
    tail = readable_tail(tail)
    if not tail.strip():
        return fit(text, budget)
    return text + heading + ("…" if cut else "") + tail


def readable_tail(tail: str) -> str:
    """The tail without slash commands, hook text and compaction boilerplate: nothing a sub-agent uses."""
    kept = [
        part
        for part in tail.split("\n\n")
        if not part.startswith(("[Compact summary]", "--- context compacted"))
        and not (part.startswith("User: ") and not is_users_words(part[6:]))
    ]
    return "\n\n".join(kept)


def _demote(digest: str) -> str:
    """The digest's own headings sit one level under the block's."""
    return "\n".join("##" + line if line.startswith("#") else line for line in digest.splitlines())


class InheritanceService:
    """``Inheritance``: the parent's context for a sub-agent's start (session-start, SubagentStart)."""

    def __init__(
        self,
        transcripts: TranscriptStore,
        checkpoints: CheckpointStore,
        states: StateStore | None,
        config: ContinuityConfig,
    ) -> None:
        self._transcripts = transcripts
        self._checkpoints = checkpoints
        self._states = states
        self._config = config

    def inherited_block(
        self, agent_id: str, hook: Hook, now: datetime, budget: int | None = None
    ) -> str | None:
        inherited = self.inherit(agent_id, hook, now, budget)
        return inherited.text if inherited is not None else None

    def inherit(
        self, agent_id: str, hook: Hook, now: datetime, budget: int | None = None
    ) -> InheritedBlock | None:
        """The block and the parent it came from (for the injection inspector's lineage)."""
        if not self._config.inherit_context:
            return None
        parent = find_parent(agent_id, hook, self._transcripts, self._checkpoints)
        if parent is None:
            return None
        if parent.looked_up:
            head, checkpoint = parent.head, parent.checkpoint
        else:
            head = self._transcripts.assembled_head(agent_id, parent.session_key, consistent=True)
            checkpoint = self._checkpoints.latest_for_session(agent_id, parent.session_key)
        if checkpoint is None and head is None:
            return None
        digest = checkpoint.session_digest if checkpoint is not None else None
        decisions = [f.text for f in digest.of(FactKind.DECISION)][-MAX_DECISIONS:] if digest else []
        text = render_inherited(
            parent,
            checkpoint,
            head,
            self._constraints(agent_id, parent.session_key, checkpoint),
            self._config.tail_chars,
            self.budget() if budget is None else budget,
            now,
            decisions,
        )
        return InheritedBlock(text, parent.session_key, parent.source.value) if text else None

    def budget(self) -> int:
        """What the block may take of the injection cap when the caller gives no budget: the recovery
        section's reservation stays, but never below a third of the cap (a sub-agent's start drops a
        guessed recovery for its parent's block, so the two rarely share the cap)."""
        left = MAX_INJECTION_CHARS - self._config.recovery_budget_chars - SHARED_HEADROOM
        return max(MAX_INJECTION_CHARS // 3, left)

    def _constraints(self, agent_id: str, session_key: str, checkpoint: Checkpoint | None) -> list[str]:
        """The parent's constraints: its rolling digest's (all it has established, whatever its later
        checkpoints and compactions), then rules in the prompts and notes since that checkpoint.
        A checkpoint from before the digest: its digest's bullet lines, notes, summary, next steps."""
        texts: list[str] = []
        from_digest: list[str] = []
        if checkpoint is not None and checkpoint.session_digest is not None:
            from_digest = [f.text for f in checkpoint.session_digest.of(FactKind.CONSTRAINT)]
        elif checkpoint is not None:
            bullets = [line[2:] for line in checkpoint.digest.splitlines() if line.startswith("- ")]
            texts += [
                *bullets,
                *checkpoint.recent_remembers,
                checkpoint.summary or "",
                *checkpoint.next_steps,
            ]
        state = self._states.get(agent_id, session_key) if self._states is not None else None
        if state is not None:
            texts += [*state.pending_remembers, *state.pending_snippets]
        since = [c for c in constraints_from(texts) if c not in from_digest]
        # The digest's rules first; the newest unsaved ones take at most half the room.
        newest = since[-(MAX_CONSTRAINTS // 2) :] if from_digest else since
        return [*from_digest[: MAX_CONSTRAINTS - len(newest)], *newest]
