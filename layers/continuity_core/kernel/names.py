"""Every name that the stored data, the deployment and the code must agree on, declared once.

Environment variables, the table's key and TTL attributes, its indexes (names, keys, what they
project), the key prefixes of each kind of item and the S3 key prefix of transcript bodies.
``infra/wiring.py`` builds the CDK and local stacks from these; adapters, services, config and the
local stack read them from here. Changing a string here changes the stored format: items written
before keep the old one.

Standard library only (nothing at all, in fact): the CDK app, the local stack and every Lambda
function import it.
"""

from __future__ import annotations

# -- environment variables ----------------------------------------------------------------------

TABLE_ENV = "CONTINUITY_TABLE_NAME"
QUEUE_ENV = "CHECKPOINT_QUEUE_URL"
# The checkpoint queue's dead-letter queue, for a function that reads its depth (the health route).
DLQ_ENV = "CHECKPOINT_DLQ_URL"
BUCKET_ENV = "TRANSCRIPT_BUCKET_NAME"
# The bootstrap admin token's sha256 (the authorizer's; the local stack's --token).
API_TOKEN_ENV = "CONTINUITY_API_TOKEN_SHA256"
# A setting's variable is this prefix and its name in upper snake case (CONTINUITY_PROMPT_INTERVAL).
CONFIG_ENV_PREFIX = "CONTINUITY_"

# -- HTTP headers ------------------------------------------------------------------------------

# Every hook answer tells the service's compaction-nudge point (tokens), so the client knows from
# which context size a prompt must wait for its answer (the client declares it too: it cannot import this).
NUDGE_POINT_HEADER = "X-Continuity-Nudge-Tokens"

# -- the table ---------------------------------------------------------------------------------

PK = "pk"
SK = "sk"
TTL_ATTRIBUTE = "expires_at"

# Checkpoints and ledger heads by project, newest first.
PROJECT_INDEX = "by_project"
PROJECT_INDEX_PK = "gsi1pk"
PROJECT_INDEX_SK = "gsi1sk"

# Sessions with a live transcript by project, newest first (a key appends never change). It projects
# everything a session summary needs, never the body. The project's session notes (below) sit in
# it too, under a partition of their own (``PROJECT_NOTES_PART``): every session of a project,
# newest start first, transcript or not (the dashboard's sessions page).
SESSION_INDEX = "sessions_by_project"
SESSION_INDEX_PK = "gsi2pk"
SESSION_INDEX_SK = "gsi2sk"
SESSION_INDEX_ATTRIBUTES = (
    "session_key",
    "harness",
    "project",
    "project_normalized",
    "created_at",
    "updated_at",
    "length",
)

# Sparse: what ages out and the pruner deletes or keeps (state, transcript heads, checkpoints), by the
# bucket its retention runs out in (retention/retention.py). It projects what the pruner needs to delete
# an item and its bodies.
EXPIRY_INDEX = "by_expiry"
EXPIRY_PK = "gsi3pk"
EXPIRY_SK = "gsi3sk"
EXPIRY_INDEX_ATTRIBUTES = ("session_key", "chunk_ids")
EXPIRY_BUCKET_PREFIX = "EXP#"

# Sparse: session states that got pending prompts, by when the idle sweep should look at them
# (checkpoints/idle.py). Set by the first pending prompt or remember (``if_not_exists``, so a prompt
# rewrites no index copy), moved on or removed by the sweep and by session end. A few shards, so
# one busy partition never takes every session's writes.
IDLE_INDEX = "by_idle_check"
IDLE_PK = "gsi4pk"
IDLE_SK = "gsi4sk"
IDLE_INDEX_ATTRIBUTES = ("session_key",)
IDLE_SHARD_PREFIX = "IDLE#"
IDLE_SHARDS = 4

# -- keys of each kind of item -------------------------------------------------------------------

# A tenant's partitions: A#{agent}#S#{session}, A#{agent}#P#{project}, A#{agent}#L#{project}, where
# {project} is the first PROJECT_HASH_CHARS hex digits of the sha256 of the project's string (its
# redacted normal form), never the string (docs/SECURITY.md#identifiers). Items written before under
# the raw path are moved by ``python -m infra.migrate_project_keys``.
PROJECT_HASH_CHARS = 32
AGENT_PREFIX = "A#"
SESSION_PART = "#S#"
PROJECT_PART = "#P#"
LEDGER_PART = "#L#"

STATE_SK = "STATE"
CHECKPOINT_PREFIX = "CP#"
# The ledger: entries under their own partition; its head also sits in the project index under
# "LEDGER", which sorts after every "CP#…", so one query gives both.
LEDGER_ENTRY_PREFIX = "D#"
LEDGER_HEAD_SK = "HEAD"
LEDGER_HEAD_INDEX_SK = "LEDGER"
TRANSCRIPT_SK = "TRANSCRIPT"
# A sub-agent's own session (its transcript, from SubagentStop) is keyed
# ``{parent session}{SUBAGENT_KEY_PART}{the harness's agent id}``. The client forms these keys
# (client/continuity_client/hook/harness.py keeps the same string; a test holds them equal).
SUBAGENT_KEY_PART = ":subagent:"
# A deleted session's state item becomes its tombstone: this attribute set, every later state write
# refused on it (admin/forget.py) until it expires.
DELETED_AT_ATTRIBUTE = "deleted_at"
# Under a project's key (A#{agent}#P#{project}), one item per session, written when the session's
# state is created: a project's sessions are found before they have a checkpoint or a transcript.
PROJECT_SESSION_PREFIX = "SESSION#"
# The notes' partition in the session index: A#{agent}#PS#{project} (the transcripts' is #P#).
PROJECT_NOTES_PART = "#PS#"
TRANSCRIPT_APPEND_PREFIX = "TRANSCRIPT#D#"
# A hand-off (``continuity handoff``): one item under the project's key, HANDOFF#{at}#{id}. While
# open it also sits in the project index under OPEN#HANDOFF#{at}#{id}, which sorts after "LEDGER"
# (and every "CP#…"): the session start's one newest-first query of the index reads the open
# hand-offs first. Its consumption removes those index keys, in the start's own transaction.
HANDOFF_PREFIX = "HANDOFF#"
OPEN_HANDOFF_INDEX_PREFIX = "OPEN#HANDOFF#"
# What a session start or sub-agent start injected (the dashboard's inspector), one item each under
# the session: INJECTION#{at}#{event}. The pruner deletes them with the session's retention.
INJECTION_PREFIX = "INJECTION#"

# A tenant's projects: A#{agent}#PROJECTS, one item per project by its hash (P#{hash}), written
# with each session's note (when its state is created): what the projects page lists in one query.
PROJECTS_PART = "#PROJECTS"
PROJECT_RECORD_PREFIX = "P#"
# On a project's record, one attribute per open hand-off: this prefix + the hand-off's id (letters
# and digits), holding the hand-off's TTL epoch (the page's count of open hand-offs).
OPEN_HANDOFF_ATTRIBUTE_PREFIX = "open_handoff_"

# A tenant's tokens: A#{agent}#TOKENS, one item per token by its id (listed and revoked by its
# agent's admin only).
TOKENS_PART = "#TOKENS"

# Global items (under no agent): a token by its hash (the authorizer knows only the token, so it
# cannot name the agent first; the key is a sha256 no one can list), the operator's list of tenants,
# rate windows, the pruner's cursor.
TOKEN_HASH_PREFIX = "TOKEN#"
TOKEN_SK = "TOKEN"
TENANTS_PK = "TENANTS"
# Where the version before tenant admins kept every agent's token ids together; ``python -m
# infra.operator migrate-tokens`` moves them under their agents (docs/SECURITY.md, migration).
LEGACY_TOKEN_INDEX_PK = "TOKENS"
RATE_PREFIX = "RATE#"
# Under a rate key (RATE#{token}), beside its minute windows: the long-lived item of when each
# (harness, event) hook was last received, and the prefix of those marks' attribute names (on it
# and on the windows).
RATE_SEEN_SK = "SEEN"
SEEN_ATTRIBUTE_PREFIX = "seen#"
PRUNER_CURSOR_PK = "PRUNER"
PRUNER_CURSOR_SK = "CURSOR"

# -- the transcript bucket -----------------------------------------------------------------------

TRANSCRIPT_KEY_PREFIX = "transcripts"
