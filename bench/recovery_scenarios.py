# ruff: noqa: RUF001 - the scenarios use non-ASCII text on purpose (paths, names, dashes)
"""Scripted coding sessions for the recovery-quality suite (``bench/recovery_suite.py``).

Each scenario is a Claude Code session in one project: facts are *planted* at given prompts (by the
user in a prompt, by the agent in its reply or tool calls, through the ``remember`` hook, or in an
agent digest), some later superseded or answered, and every other turn is *filler*: real Claude
Code turns rendered to readable text from ``../shared/corpus/claude-code/real_projects`` (synthetic
turns when that folder is absent). Before the main session the same project has a short *decoy*
session with facts of its own, which must never show up in the main session's recovery.

A fact has one or more *probes*: short distinctive substrings a faithful recovery block keeps
verbatim. A superseded or answered fact also has a *stale* probe, specific to the old statement and
absent from the statement that replaces it. ``validate`` checks that every probe is found where it
is planted and nowhere else in the session (filler turns that happen to contain one are skipped).

This file is written independently of any fact extractor: the phrasings are the ones people and
agents use, not the ones an extractor looks for.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from continuity_client.hook.transcript import blocks, render, result_line, tool_line

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "claude-code" / "real_projects"

# Who stated a fact.
USER, AGENT, REMEMBER, DIGEST = "user", "agent", "remember", "digest"
# What kind of fact it is.
KINDS = (
    "constraint",
    "decision",
    "question",
    "answer",
    "finding",
    "file",
    "remember",
    "next_step",
    "instruction",
)
CURRENT, SUPERSEDED, ANSWERED = "current", "superseded", "answered"

FILLER_PROMPT_CHARS = 1500  # a real prompt longer than this (a pasted log) is not used as filler
FILLER_TURN_CHARS = 4000  # a filler turn's reply is cut to about this many characters
PAUSE_EVERY = 20  # the runner waits for the periodic checkpoint after every this-many prompts


# ---------------------------------------------------------------------------------------------
# What a scenario declares
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    """A statement the recovery block must carry (``probes``), or, once closed, not as current."""

    id: str
    kind: str
    probes: tuple[str, ...]
    stale: str | None = None  # a probe of this (old) statement, for when a later fact closes it
    closes: str | None = None  # this fact supersedes or answers the fact with this id


@dataclass(frozen=True)
class Tool:
    name: str
    input: str
    result: str = "ok"


@dataclass(frozen=True)
class Plant:
    """What happens at one prompt besides filler: the prompt itself, the agent's reply and tool
    calls, a remember hook, an agent digest; and the facts it states."""

    turn: int
    by: str
    facts: tuple[Fact, ...] = ()
    prompt: str | None = None
    reply: str | None = None
    tools: tuple[Tool, ...] = ()
    remember: str | None = None
    digest: dict[str, object] | None = None

    def texts(self) -> list[str]:
        """Everything this plant puts into the session, as text (for probe validation)."""
        found = [self.prompt or "", self.reply or "", self.remember or ""]
        for tool in self.tools:
            found += [tool.input, tool.result]
        found += list(_strings(self.digest))
        return [text for text in found if text]


@dataclass(frozen=True)
class Scenario:
    name: str
    domain: str
    prompts: int
    plants: tuple[Plant, ...]
    decoy_prompts: int
    decoy: tuple[Plant, ...]
    summary: str = ""

    @property
    def cwd(self) -> str:
        return f"/work/{self.name}"


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


# Fact constructors ---------------------------------------------------------------------------


def constraint(id: str, *probes: str, stale: str | None = None, closes: str | None = None) -> Fact:
    return Fact(id, "constraint", probes, stale, closes)


def decision(id: str, *probes: str, stale: str | None = None, closes: str | None = None) -> Fact:
    return Fact(id, "decision", probes, stale, closes)


def question(id: str, *probes: str, stale: str | None = None) -> Fact:
    return Fact(id, "question", probes, stale)


def answer(id: str, *probes: str, closes: str) -> Fact:
    return Fact(id, "answer", probes, closes=closes)


def finding(id: str, *probes: str) -> Fact:
    return Fact(id, "finding", probes)


def path(id: str, file: str) -> Fact:
    return Fact(id, "file", (file,))


def next_step(id: str, *probes: str) -> Fact:
    return Fact(id, "next_step", probes)


# Plant constructors --------------------------------------------------------------------------


def said(
    turn: int, prompt: str, *facts: Fact, reply: str | None = None, tools: tuple[Tool, ...] = ()
) -> Plant:
    """The user states ``facts`` in the prompt of ``turn``."""
    return Plant(turn, USER, facts, prompt=prompt, reply=reply, tools=tools)


def agent(
    turn: int, reply: str | None, *facts: Fact, prompt: str | None = None, tools: tuple[Tool, ...] = ()
) -> Plant:
    """The agent states ``facts`` in its reply (or only through its tool calls) at ``turn``."""
    return Plant(turn, AGENT, facts, prompt=prompt, reply=reply, tools=tools)


def edits(turn: int, *files: tuple[str, str], prompt: str | None = None, reply: str | None = None) -> Plant:
    """Files in play only through the agent's tool calls: ``(fact id, path)`` pairs."""
    tools = tuple(
        Tool("Write" if n % 2 else "Edit", file, _edit_result(file)) for n, (_, file) in enumerate(files)
    )
    return Plant(turn, AGENT, tuple(path(i, f) for i, f in files), prompt=prompt, reply=reply, tools=tools)


def remember(turn: int, id: str, content: str, prompt: str | None = None) -> Plant:
    """A ``remember`` hook during ``turn``: its content must come back verbatim."""
    return Plant(turn, REMEMBER, (Fact(id, "remember", (content,)),), prompt=prompt, remember=content)


def digest(turn: int, body: dict[str, object], *facts: Fact, prompt: str | None = None) -> Plant:
    """The agent's digest (``POST /api/sessions/{key}/digest``) after ``turn``."""
    return Plant(turn, DIGEST, facts, prompt=prompt, digest=body)


def last(turn: int, id: str, prompt: str) -> Plant:
    """The last user prompt before the compaction: it must come back verbatim."""
    return Plant(turn, USER, (Fact(id, "instruction", (prompt,)),), prompt=prompt)


def _edit_result(file: str) -> str:
    return f"The file {file} has been updated."


# ---------------------------------------------------------------------------------------------
# The scenarios
# ---------------------------------------------------------------------------------------------

GO_ON = ("go ahead", "ok, do it", "yes please", "sounds good, carry on", "continue", "ok")

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="ledger-api",
        domain="backend",
        summary="FastAPI payments ledger: refunds, idempotency keys",
        prompts=60,
        plants=(
            said(
                2,
                "Quick ground rules before we start: please never touch the migrations folder, the Alembic "
                "revisions are generated by the release pipeline and not by hand.",
                constraint("c-migrations", "migrations folder"),
            ),
            said(
                5,
                "Decision: we'll keep idempotency keys in Redis with a 24h TTL, one key per refund request.",
                decision("d-idem-redis", "idempotency keys in Redis", stale="idempotency keys in Redis"),
            ),
            said(
                9,
                "Can you look at the refund endpoint? It returns a 500 when the amount has more than two "
                "decimals. Also, and this matters for everything we do in this repo: all monetary amounts "
                "are stored as integer minor units (cents), never as floats. Then add a regression test "
                "next to the existing refund tests and run the suite.",
                constraint("c-minor-units", "integer minor units"),
            ),
            agent(
                12,
                "I found that the 500 comes from the Decimal quantization in `to_minor_units()`: it raises "
                "InvalidOperation for amounts with three decimals, and the handler doesn't catch it.",
                finding("f-quantize", "to_minor_units", "InvalidOperation"),
                path("p-money", "app/ledger/money.py"),
                prompt="why does it blow up there?",
                tools=(
                    Tool("Read", "app/ledger/money.py", "def to_minor_units(amount: Decimal) -> int: ..."),
                ),
            ),
            said(
                17,
                "Open question for later: does the payment provider retry webhooks on a 409, or only on 5xx?",
                question("q-webhook-409", "retry webhooks on a 409", stale="retry webhooks on a 409"),
            ),
            remember(
                21,
                "r-two-legs",
                "Ledger invariant: every journal entry has exactly two legs and the legs sum to zero.",
            ),
            digest(
                26,
                {
                    "summary": "Refund rounding bug fixed; idempotency layer half done.",
                    "decisions": [
                        {
                            "decision": "Reject refund amounts with more than two decimals at the API "
                            "boundary with a 422",
                            "rationale": "silent rounding hides client bugs",
                        }
                    ],
                    "next_steps": ["Backfill idempotency keys for refunds that are still in flight"],
                    "blockers": ["Waiting on sandbox credentials from the payment provider"],
                },
                decision("d-422", "more than two decimals at the API boundary"),
                next_step("n-backfill", "Backfill idempotency keys"),
                question("q-sandbox", "sandbox credentials", stale="sandbox credentials"),
                prompt="before we go further, write a digest of where we are",
            ),
            edits(
                31,
                ("p-refunds-route", "app/api/routes/refunds.py"),
                ("p-refund-test", "tests/api/test_refund_rounding.py"),
                prompt="ok, wire it into the route and add the test",
            ),
            said(
                35,
                "We can't add new dependencies to this service without a security review, so stick to the "
                "stdlib and what's already in pyproject.",
                constraint("c-no-deps", "without a security review"),
            ),
            said(
                38,
                "Change of plan on idempotency: store the keys in a Postgres table, idempotency_keys, "
                "instead. The Redis cluster is being decommissioned next quarter.",
                decision("d-idem-pg", "idempotency_keys", closes="d-idem-redis"),
            ),
            agent(
                41,
                "I decided to do the idempotency check in a FastAPI dependency, `require_idempotency_key`, "
                "rather than in middleware, so the health checks stay exempt.",
                decision("d-dependency", "require_idempotency_key"),
                prompt="where should the check live?",
            ),
            said(
                44,
                "Answer to the earlier webhook question: the provider only retries on 5xx and timeouts; a "
                "409 is treated as final.",
                answer("a-webhook", "only retries on 5xx", closes="q-webhook-409"),
            ),
            said(
                50,
                "FYI the provider's test keys arrived this morning, they're in 1Password under 'PSP test', "
                "so that blocker is gone.",
                answer("a-sandbox", "PSP test", closes="q-sandbox"),
            ),
            remember(
                55, "r-stg-db", "Staging DB is ledger-stg-2; use the read replica only after 18:00 CET."
            ),
            last(
                60,
                "i-last",
                "Now finish the one-off script that copies live keys into the new table for staging only, "
                "put it under scripts/oneoff/, and run the refund tests once more before you stop.",
            ),
        ),
        decoy_prompts=6,
        decoy=(
            said(
                1,
                "New task: the admin dashboard needs a CSV export of the payouts list. Keep the CSV export "
                "under 10k rows per file, ops opens these in Excel.",
                constraint("x-rows", "10k rows per file"),
            ),
            said(
                3,
                "For the XLSX variant let's use openpyxl, it's already in the admin image.",
                decision("x-openpyxl", "openpyxl"),
            ),
            remember(5, "x-toolbar", "Priya wants the export button in the toolbar, not the kebab menu."),
        ),
    ),
    Scenario(
        name="storefront-web",
        domain="frontend",
        summary="Next.js product listing moved to server components",
        prompts=45,
        plants=(
            said(
                1,
                "We're migrating the product listing page to server components. Hard rule: no client-side "
                "fetching in anything under app/(shop)/ — data only comes from the server loaders.",
                constraint("c-no-client-fetch", "no client-side fetching"),
            ),
            said(
                4,
                "I'll use zod for validation of the search params; please don't bring in yup.",
                decision("d-zod", "zod for validation"),
            ),
            said(
                7,
                "Make sure you always run `pnpm lint && pnpm typecheck` before telling me something is done.",
                constraint("c-lint", "pnpm lint && pnpm typecheck"),
            ),
            edits(
                10,
                ("p-page", "app/(shop)/products/page.tsx"),
                ("p-grid", "components/ProductGrid/ProductGrid.tsx"),
                prompt="start with the page and the grid",
            ),
            agent(
                13,
                "I found that the hydration mismatch comes from `formatPrice()` using the browser locale, "
                "while the server always renders en-US.",
                finding("f-hydration", "hydration mismatch", "formatPrice"),
                prompt="what's the warning in the console about?",
            ),
            said(
                16,
                "Something we still need to figure out: why does the filter drawer lose its state when you "
                "navigate back from a product page?",
                question("q-drawer", "filter drawer lose its state", stale="filter drawer lose its state"),
            ),
            said(
                19,
                "Let's go with CSS Modules for the new components.",
                decision("d-css-modules", "CSS Modules", stale="CSS Modules"),
            ),
            remember(
                22, "r-figma", "Figma source of truth: 'Storefront 2025 / PLP' page, owner Zoë Ångström."
            ),
            said(
                25,
                "The checkout/ directory is off limits for this task, another team is in the middle of a "
                "refactor there.",
                constraint("c-checkout", "checkout/", "off limits"),
            ),
            edits(28, ("p-filter-hook", "components/FilterDrawer/useFilterParams.ts"), prompt="go on"),
            agent(
                30,
                "That one is resolved: the drawer kept its state in a `useState` inside a component that "
                "remounts on navigation. I moved it into the URL search params (`?filters=`).",
                answer("a-drawer", "?filters=", closes="q-drawer"),
                prompt="did you get to the bottom of the drawer thing?",
            ),
            said(
                33,
                "Scratch that, we're standardising on Tailwind after all: the design team ships its tokens "
                "as a Tailwind preset.",
                decision("d-tailwind", "Tailwind", closes="d-css-modules"),
            ),
            said(
                36,
                "Heads-up: we can't use next/image for the product thumbnails, the CDN already resizes them "
                "and processing them twice makes them blurry.",
                constraint("c-next-image", "next/image"),
            ),
            agent(
                40,
                "I decided to memoise the grid with `React.memo` keyed on the product ids instead of adding "
                "virtualization; the list is capped at 48 items per page.",
                decision("d-memo", "React.memo"),
                prompt="scrolling feels janky on the big category, can you fix it?",
            ),
            last(
                45,
                "i-last",
                "Ok last thing before lunch: make the empty-state illustration lazy-load and add a "
                "Playwright "
                "test that checks the 'No products match' message on the sale category page.",
            ),
        ),
        decoy_prompts=5,
        decoy=(
            said(
                1,
                "Let's add the newsletter signup modal. The modal must not appear on the checkout route.",
                constraint("x-modal", "must not appear on the checkout route"),
            ),
            said(3, "Use react-hook-form for the signup form.", decision("x-rhf", "react-hook-form")),
            remember(
                4, "x-delay", "Marketing wants the signup modal delayed by 8 seconds after first paint."
            ),
        ),
    ),
    Scenario(
        name="events-pipeline",
        domain="data",
        summary="Airflow + dbt + BigQuery event pipeline, sessionization, backfill",
        prompts=180,
        plants=(
            said(
                3,
                "First thing: all timestamps in the warehouse must be UTC — convert at ingestion, never in "
                "the marts.",
                constraint("c-utc", "UTC"),
            ),
            said(
                8,
                "decision: incremental models use the merge strategy keyed on event_id, not "
                "insert_overwrite.",
                decision("d-merge", "merge strategy"),
            ),
            agent(
                14,
                "I found that the duplicate sessions come from the mobile SDK resending whole batches after "
                "a 502, so the dedup key has to include `client_batch_id`.",
                finding("f-batch-id", "client_batch_id"),
                prompt="why are there duplicate rows in stg_events?",
            ),
            edits(
                20,
                ("p-stg-events", "models/staging/stg_events.sql"),
                ("p-ingest-dag", "dags/events_ingest.py"),
                prompt="ok fix the dedup in staging and the DAG",
            ),
            said(
                27,
                "Open question: is the `country` column in raw_events ISO-3166 alpha-2 or alpha-3? Nobody "
                "seems to know.",
                question("q-country", "alpha-2 or alpha-3", stale="alpha-2 or alpha-3"),
            ),
            said(
                33,
                "Let's now wire up the sessionization model. Use a 30-minute inactivity gap, like the "
                "product "
                "analytics team does. Please never run `dbt run --full-refresh` against prod; if a full "
                "rebuild is needed, ask me and I'll schedule it with the on-call. After that, add the schema "
                "tests for the new model.",
                constraint("c-full-refresh", "--full-refresh"),
                decision("d-gap", "30-minute inactivity gap"),
            ),
            remember(
                41, "r-projects", "BigQuery project for prod is acme-dw-prod; dev is acme-dw-sandbox-ana."
            ),
            said(
                45,
                "We can't use the BigQuery Storage Write API yet, our quota request isn't approved.",
                constraint(
                    "c-storage-api", "quota request isn't approved", stale="quota request isn't approved"
                ),
            ),
            digest(
                50,
                {
                    "summary": "Staging layer deduplicated; sessionization model drafted.",
                    "decisions": [
                        {"decision": "Partition fct_sessions by session_start date, cluster by user_id"}
                    ],
                    "next_steps": ["Add freshness checks on the raw_events source"],
                    "blockers": ["Airflow 2.9 upgrade pending in the shared environment"],
                    "questions": ["Should bots be filtered in staging or in marts?"],
                },
                decision("d-partition", "cluster by user_id"),
                next_step("n-freshness", "freshness checks"),
                question("q-airflow", "Airflow 2.9 upgrade", stale="Airflow 2.9 upgrade"),
                question("q-bots", "bots be filtered in staging or in marts", stale="bots be filtered"),
            ),
            said(
                60,
                "Let's use Great Expectations for the data quality checks.",
                decision("d-gx", "Great Expectations", stale="Great Expectations"),
            ),
            said(
                70,
                "About bots: filter them in staging, using the is_bot flag from the enrichment service.",
                answer("a-bots", "is_bot flag", closes="q-bots"),
            ),
            agent(
                78,
                "I decided to materialize `int_user_days` as an ephemeral model; only two marts use it.",
                decision("d-ephemeral", "int_user_days"),
                prompt="does that intermediate model need to be a table?",
            ),
            said(
                88,
                "Heads up: the finance schema is off limits. Don't read from it or write to it, not even in "
                "dev.",
                constraint("c-finance", "finance schema"),
            ),
            said(
                95,
                "Got the answer on the country codes: two-letter codes everywhere except the legacy Android "
                "app, which sends full country names.",
                answer("a-country", "legacy Android app", closes="q-country"),
            ),
            edits(
                105,
                ("p-fct-sessions", "models/marts/fct_sessions.sql"),
                ("p-marts-schema", "models/marts/schema.yml"),
                prompt="now the mart",
            ),
            said(
                120,
                "The platform team finished the scheduler upgrade yesterday, so we're unblocked there.",
                answer("a-airflow", "finished the scheduler upgrade", closes="q-airflow"),
            ),
            said(
                140,
                "Change of plan on data quality: do those checks as plain dbt tests plus the elementary "
                "package instead; GX was too heavy for this team.",
                decision("d-elementary", "elementary", closes="d-gx"),
            ),
            said(
                150,
                "Good news: the Storage Write API quota got approved, go ahead and use it for the backfill.",
                decision("d-storage-api", "quota got approved", closes="c-storage-api"),
            ),
            remember(
                160,
                "r-backfill-order",
                "Backfill order: 2023 first, then 2024, then 2025; finance reconciles per year.",
            ),
            agent(
                170,
                "I found that late-arriving events are up to 72 hours late, so the incremental lookback "
                "should be 3 days.",
                finding("f-late", "72 hours"),
                prompt="how far back does the incremental window need to look?",
            ),
            last(
                180,
                "i-last",
                "Kick off the 2023 backfill in dev only, then write the runbook section for the "
                "sessionization model and stop there; I'll review the numbers tomorrow morning.",
            ),
        ),
        decoy_prompts=6,
        decoy=(
            said(
                1,
                "Quick one on the attribution notebook: don't schedule anything on the shared-etl pool, "
                "it's reserved for the nightly loads.",
                constraint("x-pool", "shared-etl pool"),
            ),
            said(2, "Use DuckDB for the local notebook analysis.", decision("x-duckdb", "DuckDB")),
            remember(4, "x-window", "Attribution window is 7 days after click, 1 day after view."),
        ),
    ),
    Scenario(
        name="platform-infra",
        domain="infra",
        summary="Terraform EKS cluster, node groups, CI plan",
        prompts=70,
        plants=(
            said(
                2,
                "Ground rules for this repo: every change goes through `terraform plan` in CI and we never "
                "run apply from a laptop.",
                constraint("c-no-local-apply", "from a laptop"),
            ),
            said(
                6,
                "We'll put the new cluster in eu-west-1 with three managed node groups.",
                decision("d-eu-west", "eu-west-1", stale="eu-west-1"),
            ),
            said(
                11,
                "Only use the v2 module registry (modules/v2/...); the v1 modules are frozen.",
                constraint("c-v2", "v2 module registry"),
            ),
            edits(
                15,
                ("p-eks-main", "modules/v2/eks/main.tf"),
                ("p-prod-cluster", "envs/prod/cluster.tf"),
                prompt="start on the cluster module",
            ),
            agent(
                19,
                "I found that the permanent diff on every plan is caused by the statement ordering in "
                "`aws_iam_policy_document`; sorting the statements by sid makes the plan stable.",
                finding("f-policy-order", "aws_iam_policy_document"),
                prompt="why does plan always show changes to the node role?",
            ),
            said(
                24,
                "Question: do we need IRSA for the log shipper or can it just use the node role?",
                question("q-irsa", "IRSA for the log shipper", stale="IRSA for the log shipper"),
            ),
            remember(
                28,
                "r-window",
                "Change window for prod is Tuesday 14:00–16:00 CET; nothing merges to prod outside it.",
            ),
            digest(
                33,
                {
                    "summary": "EKS module upgraded; node groups drafted.",
                    "decisions": [
                        {
                            "decision": "Use Karpenter instead of cluster-autoscaler for the batch node "
                            "group",
                            "rationale": "faster scale-up for the nightly jobs",
                        }
                    ],
                    "next_steps": ["Write the PodDisruptionBudgets for ingress-nginx"],
                    "questions": ["Who owns the shared VPC peering with the data account?"],
                },
                decision("d-karpenter", "Karpenter"),
                next_step("n-pdb", "PodDisruptionBudgets"),
                question("q-peering", "shared VPC peering"),
            ),
            said(
                37,
                "The ingress annotations are a mess. Can you consolidate them into the values file? While "
                "you're in there: keep PRs under 400 lines, reviewers here won't look at anything bigger, "
                "so split it if you need to. Then show me a summary of the diff.",
                constraint("c-pr-size", "under 400 lines"),
            ),
            agent(
                40,
                "Answering the earlier question: security says the node role is not acceptable, so the log "
                "shipper gets its own IRSA role, `fluentbit-logs`.",
                answer("a-irsa", "fluentbit-logs", closes="q-irsa"),
                prompt="any news from security about the logging permissions?",
            ),
            said(
                44,
                "Blocker: the CI plan fails with 'x509: certificate signed by unknown authority' on the OIDC "
                "provider.",
                question(
                    "q-x509",
                    "certificate signed by unknown authority",
                    stale="certificate signed by unknown authority",
                ),
            ),
            said(
                48,
                "Scratch that region: legal wants the data in Frankfurt, so the cluster moves to "
                "eu-central-1.",
                decision("d-eu-central", "eu-central-1", closes="d-eu-west"),
            ),
            remember(53, "r-state", "State backend: s3://tf-state-acme-prod with the lock table tf-locks."),
            agent(
                58,
                "I'll pin the AWS provider to ~> 5.60 in every environment so plans stay reproducible.",
                decision("d-provider-pin", "~> 5.60"),
                prompt="the plan output differs between my machine and CI",
            ),
            edits(62, ("p-nodepool", "modules/v2/autoscaling/nodepool.tf"), prompt="next"),
            said(
                66,
                "That CI failure is fixed now: the OIDC thumbprint had expired, I rotated it.",
                answer("a-thumbprint", "OIDC thumbprint", closes="q-x509"),
            ),
            last(
                70,
                "i-last",
                "Open the PR for the new node groups now, split the autoscaler nodepool into a follow-up PR, "
                "and request review from the platform on-call.",
            ),
        ),
        decoy_prompts=5,
        decoy=(
            said(
                1,
                "Rotating the bastion SSH keys today. Keep port 22 closed except from the VPN CIDR.",
                constraint("x-vpn", "VPN CIDR"),
            ),
            said(2, "Generate ed25519 keys, not RSA.", decision("x-ed25519", "ed25519")),
            remember(4, "x-bastion", "Bastion host is bastion-eu-1.internal."),
        ),
    ),
    Scenario(
        name="docs-site",
        domain="docs",
        summary="MkDocs site: Spanish translation of the signalling guide",
        prompts=25,
        plants=(
            said(
                1,
                "We're translating the signalling guide. The Spanish page lives at docs/señal_café.md; keep "
                "that filename exactly as it is, accents included.",
                path("p-senal", "docs/señal_café.md"),
            ),
            said(
                3,
                "Please never change anchors or heading IDs in existing pages, external sites deep-link to "
                "them.",
                constraint("c-anchors", "heading IDs"),
            ),
            said(
                6,
                "We'll use admonitions (!!! note) instead of blockquotes for warnings.",
                decision("d-admonitions", "admonitions"),
            ),
            edits(
                8,
                ("p-mkdocs", "mkdocs.yml"),
                ("p-guia", "docs/es/guía_rápida.md"),
                prompt="set up the i18n plugin",
            ),
            remember(
                10, "r-glossary", "Glossary owner: Zoë Ångström (Lisbon); terminology questions go to her."
            ),
            said(
                12,
                "Do we translate the code comments inside the snippets, or leave them in English?",
                question("q-comments", "translate the code comments", stale="translate the code comments"),
            ),
            agent(
                15,
                "I found that the broken-link check fails because `mkdocs-static-i18n` rewrites relative "
                "links with a `../es/` prefix.",
                finding("f-i18n", "mkdocs-static-i18n"),
                prompt="the link checker is red, why?",
            ),
            said(
                18,
                "Word from the docs guild on the snippets: comments stay in English, only the prose gets "
                "translated.",
                answer("a-comments", "comments stay in English", closes="q-comments"),
            ),
            said(
                20,
                "Let's publish the Spanish pages under /es/ with the language switcher in the header.",
                decision("d-header", "switcher in the header", stale="switcher in the header"),
            ),
            said(
                23,
                "Actually, put the language switcher in the footer; the header is too crowded on mobile.",
                decision("d-footer", "switcher in the footer", closes="d-header"),
            ),
            last(
                25,
                "i-last",
                "Finish translating the 'Primeros pasos' section and open a draft PR titled «Guía de "
                "señales: "
                "traducción inicial».",
            ),
        ),
        decoy_prompts=4,
        decoy=(
            said(
                1,
                "Generating the API reference today: do not edit generated files under docs/reference/.",
                constraint("x-generated", "docs/reference/"),
            ),
            said(
                2, "We'll build the reference with mkdocstrings.", decision("x-mkdocstrings", "mkdocstrings")
            ),
            remember(3, "x-release-notes", "Release notes go out every second Thursday."),
        ),
    ),
    Scenario(
        name="field-app",
        domain="mobile",
        summary="React Native app for field technicians: offline sync, photos",
        prompts=50,
        plants=(
            said(
                2,
                "Context: the app must work fully offline for up to 3 days, so anything you build needs to "
                "queue its writes locally.",
                constraint("c-offline", "offline for up to 3 days"),
            ),
            said(
                5,
                "Let's go with WatermelonDB for the local store.",
                decision("d-watermelon", "WatermelonDB", stale="WatermelonDB"),
            ),
            said(
                9,
                "Don't bump the minimum iOS version, about 9% of the techs are still on iOS 15.",
                constraint("c-ios-min", "minimum iOS version"),
            ),
            edits(
                12,
                ("p-outbox", "src/sync/outbox.ts"),
                ("p-workorder", "src/screens/WorkOrderScreen.tsx"),
                prompt="build the outbox for the work order screen",
            ),
            agent(
                16,
                "I found that the crash on Android 12 is caused by react-native-reanimated 3.6 with Hermes; "
                "pinning 3.5.4 fixes it.",
                finding("f-reanimated", "reanimated", "3.5.4"),
                prompt="the Android build crashes on launch, can you look?",
            ),
            said(
                20,
                "Open question: should conflict resolution be last-write-wins, or should the server merge "
                "field by field?",
                question("q-conflicts", "last-write-wins", stale="last-write-wins"),
            ),
            remember(
                24,
                "r-test-account",
                "Test account: tech-demo-07, site 'Zürich Süd' has every work-order type.",
            ),
            said(
                28,
                "The photo upload is too slow on 3G. Can you compress before upload? Target is under 500 KB. "
                "Make sure you always strip the EXIF GPS data before a photo leaves the device, that's a "
                "privacy requirement from legal. And show a progress bar.",
                constraint("c-exif", "EXIF GPS"),
            ),
            said(
                31,
                "Change of plan: the local store moves to op-sqlite; Watermelon's sync protocol doesn't fit "
                "our API.",
                decision("d-op-sqlite", "op-sqlite", closes="d-watermelon"),
            ),
            said(
                36,
                "The backend team answered: the server merges the changes itself and returns the merged "
                "record, so the client just replaces its copy.",
                answer("a-conflicts", "returns the merged record", closes="q-conflicts"),
            ),
            agent(
                40,
                "I decided to upload photos from a background task (`expo-background-fetch`) so uploads "
                "survive the app being switched away.",
                decision("d-bg-upload", "expo-background-fetch"),
                prompt="uploads die when the tech switches apps",
            ),
            edits(44, ("p-compress", "src/media/compressPhoto.ts"), prompt="ok"),
            last(
                50,
                "i-last",
                "Build a release candidate for the internal track only, not production, and write the "
                "changelog entry in German and English.",
            ),
        ),
        decoy_prompts=5,
        decoy=(
            said(
                1,
                "Push notifications today. No notification sounds between 22:00 and 07:00 local time.",
                constraint("x-quiet", "between 22:00 and 07:00"),
            ),
            said(2, "Use expo-notifications for this.", decision("x-expo-notif", "expo-notifications")),
            remember(4, "x-apns", "The APNs key is rotated every March by the platform team."),
        ),
    ),
    Scenario(
        name="churn-model",
        domain="ml",
        summary="Churn prediction: gradient boosting baseline, leakage, calibration",
        prompts=160,
        plants=(
            said(
                2,
                "Hard rule: the test split is the last 8 weeks by signup date, and nothing from it may be "
                "used for tuning.",
                constraint("c-test-split", "last 8 weeks"),
            ),
            said(
                6,
                "We'll start with LightGBM as the baseline, no deep models until it's beaten.",
                decision("d-lgbm", "LightGBM"),
            ),
            edits(
                10,
                ("p-features", "src/churn/features.py"),
                ("p-train", "src/churn/train_lgbm.py"),
                prompt="set up the feature module and the training script",
            ),
            said(
                15,
                "Please don't log raw customer IDs anywhere, not in experiment tracking and not in "
                "notebooks; "
                "hash them first.",
                constraint("c-ids", "raw customer IDs"),
            ),
            agent(
                22,
                "I found label leakage: `days_since_last_login` is computed after the churn date for about "
                "12% of the rows.",
                finding("f-leak", "days_since_last_login"),
                prompt="the validation AUC of 0.97 looks too good, check it",
            ),
            said(
                30,
                "Open question: do we treat paused subscriptions as churned?",
                question("q-paused", "treat paused subscriptions", stale="treat paused subscriptions"),
            ),
            remember(38, "r-baseline", "Baseline to beat: AUC 0.781 on the March snapshot (run 4f2c9)."),
            digest(
                45,
                {
                    "summary": "Leakage fixed; gradient boosting baseline at 0.79 AUC.",
                    "decisions": [
                        {
                            "decision": "Use 5-fold time-series CV for tuning",
                            "rationale": "respects temporal order",
                        }
                    ],
                    "next_steps": ["Calibrate the probabilities with isotonic regression"],
                    "blockers": ["GPU quota for the hyperparameter sweep not approved yet"],
                },
                decision("d-cv", "time-series CV"),
                next_step("n-isotonic", "isotonic regression"),
                question("q-gpu", "GPU quota", stale="GPU quota"),
            ),
            said(
                55,
                "Let's track the experiments in Weights & Biases.",
                decision("d-wandb", "Weights & Biases", stale="Weights & Biases"),
            ),
            said(
                64,
                "The feature pipeline takes 40 minutes. Profile it and tell me where the time goes; we can't "
                "use Spark for this, the team has no cluster, so keep it pandas or polars. Also check the "
                "memory peak while you're at it.",
                constraint("c-no-spark", "Spark"),
            ),
            said(
                70,
                "Scratch that: company policy says experiments go to the internal MLflow server, not to a "
                "SaaS "
                "tool.",
                decision("d-mlflow", "MLflow", closes="d-wandb"),
            ),
            said(
                85,
                "Product answered the paused-subscription question: pauses shorter than 60 days are not "
                "churn.",
                answer("a-paused", "shorter than 60 days", closes="q-paused"),
            ),
            agent(
                92,
                "I decided to move the feature pipeline to polars lazy frames; it cuts the run from 40 to 6 "
                "minutes.",
                decision("d-polars", "polars lazy frames"),
                prompt="so where does the time go?",
            ),
            edits(
                100,
                ("p-pipeline", "src/churn/pipeline.py"),
                ("p-report", "reports/Modellbericht_Q3_Größen.md"),
                prompt="write the report for the German team too",
            ),
            agent(
                110,
                "The sweep capacity issue is resolved: the ML platform granted us 4×A10G until Friday.",
                answer("a-gpu", "4×A10G", closes="q-gpu"),
                prompt="can we run the sweep now?",
            ),
            said(
                125,
                "From now on, make sure every training run sets the seed to 1337 and records the git SHA.",
                constraint("c-seed", "1337"),
            ),
            remember(140, "r-reviewer", "Model card reviewer: Łukasz Żółć (fairness team)."),
            agent(
                150,
                "I found that the calibration drift is concentrated in the annual-plan segment; monthly "
                "plans "
                "are well calibrated.",
                finding("f-drift", "annual-plan segment"),
                prompt="where is the calibration off?",
            ),
            last(
                160,
                "i-last",
                "Retrain with the fixed features on the full training window, register it as churn-gbm-v3 "
                "without promoting it, and summarise the metrics against the baseline.",
            ),
        ),
        decoy_prompts=6,
        decoy=(
            said(
                1,
                "Exploring the feature store today. Never join on email, only on customer_uuid.",
                constraint("x-uuid", "customer_uuid"),
            ),
            said(3, "Let's use Feast for the online features.", decision("x-feast", "Feast")),
            remember(5, "x-holdout", "The holdout set is frozen at 2024-06-30."),
        ),
    ),
    Scenario(
        name="auth-gateway",
        domain="security",
        summary="OAuth gateway hardening: token validation, refresh rotation",
        prompts=40,
        plants=(
            said(
                1,
                "We're hardening token validation this week. Never log tokens or Authorization headers, not "
                "even at debug level.",
                constraint("c-no-token-logs", "Authorization headers"),
            ),
            said(
                4,
                "Decision: access tokens are RS256-signed JWTs with a 15-minute lifetime, and refresh tokens "
                "rotate on every use.",
                decision("d-rs256", "RS256", stale="RS256"),
                decision("d-rotate", "rotate on every use"),
            ),
            edits(
                8,
                ("p-verify", "internal/jwt/verify.go"),
                ("p-keys", "internal/jwt/keys.go"),
                prompt="start with the verifier",
            ),
            agent(
                11,
                "I found that `alg: none` tokens were accepted when the kid header was missing: verify.go "
                "falls back to an empty key set.",
                finding("f-alg-none", "alg: none"),
                prompt="anything scary in the current verifier?",
            ),
            said(
                14,
                "Only use the vetted crypto in internal/crypto; golang.org/x/crypto is fine, anything else "
                "needs sign-off from AppSec.",
                constraint("c-crypto", "internal/crypto"),
            ),
            said(
                18,
                "Question for AppSec: do we need to support the PKCE plain method for the legacy TV app?",
                question("q-pkce", "PKCE plain method", stale="PKCE plain method"),
            ),
            remember(
                21, "r-jwks", "JWKS responses may be cached for at most 10 minutes (incident INC-2291)."
            ),
            said(
                25,
                "Change of plan on signing: the security review wants ES256 instead; lifetime and refresh "
                "rotation stay as they are.",
                decision("d-es256", "ES256", closes="d-rs256"),
            ),
            said(
                28,
                "Refresh token reuse detection: if a rotated token comes back, revoke the whole family. And "
                "please keep the error responses generic, a client must never learn whether the user exists. "
                "Add tests for both.",
                constraint("c-generic-errors", "whether the user exists"),
            ),
            said(
                30,
                "AppSec answered: S256 only, the TV app gets updated in the same release.",
                answer("a-pkce", "S256 only", closes="q-pkce"),
            ),
            edits(
                33,
                ("p-family", "internal/oauth/refresh_family.go"),
                ("p-family-test", "internal/oauth/refresh_family_test.go"),
                prompt="go",
            ),
            agent(
                36,
                "I decided to keep token families in the existing sessions table with a `family_id` column "
                "rather than a new table.",
                decision("d-family-id", "family_id"),
                prompt="where do the families live?",
            ),
            last(
                40,
                "i-last",
                "Run the fuzz target for the JWT parser for ten minutes, then write up the findings for the "
                "security channel: plain text, no screenshots.",
            ),
        ),
        decoy_prompts=5,
        decoy=(
            said(
                1,
                "Rate limiting today: limits are per client_id, never per IP address.",
                constraint("x-client-id", "per client_id"),
            ),
            said(2, "Use the token bucket from golang.org/x/time/rate.", decision("x-rate", "x/time/rate")),
            remember(4, "x-pentest", "The external pen test is scheduled for week 42."),
        ),
    ),
    Scenario(
        name="billing-worker",
        domain="backend",
        summary="Go billing worker: job queue, retries, double charges",
        prompts=75,
        plants=(
            said(
                3,
                "Let's go with Redis for the job queue, using asynq.",
                decision("d-asynq", "asynq", stale="asynq"),
            ),
            said(
                6,
                "Jobs must be idempotent: assume every message is delivered at least twice.",
                constraint("c-idempotent", "at least twice"),
            ),
            said(
                10,
                "Please never change the public protobufs in api/proto/ without a version bump.",
                constraint("c-proto", "api/proto/"),
            ),
            edits(
                14,
                ("p-charge", "internal/worker/charge.go"),
                ("p-retry", "internal/worker/retry.go"),
                prompt="look at the charge worker",
            ),
            agent(
                19,
                "I found that the double charges come from the retry loop re-reading a stale `attempt` "
                "counter; the fix is a conditional update on `charges.version`.",
                finding("f-double-charge", "charges.version"),
                prompt="why did customer 8812 get charged twice?",
            ),
            said(
                25,
                "Open question: how long can a dunning run take, does it ever exceed 12 minutes?",
                question("q-dunning", "exceed 12 minutes", stale="exceed 12 minutes"),
            ),
            remember(
                30,
                "r-ssm",
                "The Stripe webhook signing key lives in SSM under /billing/prod/stripe-webhook (never in "
                ".env files).",
            ),
            said(
                35,
                "The retry policy is all over the place, centralise it in one package. We can't exceed 5 "
                "retries for card charges, the card networks fine us for excessive retries. Exponential "
                "backoff with jitter is fine.",
                constraint("c-retries", "5 retries"),
            ),
            said(
                42,
                "Actually, switch the job queue to Amazon SQS instead of Redis; ops won't run another "
                "stateful service.",
                decision("d-sqs", "Amazon SQS", closes="d-asynq"),
            ),
            said(
                45,
                "Blocker: TestChargeRetry fails about 1 in 5 runs on CI and I can't merge anything.",
                question("q-flaky", "1 in 5 runs", stale="1 in 5 runs"),
            ),
            agent(
                50,
                "I decided to use a FIFO queue with one message group per customer, so charges for one "
                "customer never run concurrently.",
                decision("d-groups", "message group per customer"),
                prompt="how do we keep two charges for the same customer apart?",
            ),
            agent(
                55,
                "Answer to the earlier dunning question: the p99 run is 4m10s and the longest in 30 days was "
                "7m, so a 10-minute visibility timeout is enough.",
                answer("a-dunning", "10-minute visibility timeout", closes="q-dunning"),
                prompt="what visibility timeout do we need?",
            ),
            edits(60, ("p-consumer", "internal/queue/sqs_consumer.go"), prompt="write the consumer"),
            said(
                66,
                "Turns out TestChargeRetry was flaky because the fake clock never advanced; fixed now.",
                answer("a-flaky", "fake clock", closes="q-flaky"),
            ),
            remember(70, "r-oncall", "On-call for billing this week: Zoë Ångström (backup: Mateus)."),
            last(
                75,
                "i-last",
                "Deploy the new queue consumer to staging behind the BILLING_QUEUE_V2 flag, leave it "
                "disabled, "
                "and put the rollback steps in the PR description.",
            ),
        ),
        decoy_prompts=5,
        decoy=(
            said(
                1,
                "Invoice PDF template today. The invoice footer must show the VAT number.",
                constraint("x-vat", "VAT number"),
            ),
            said(2, "Render the PDFs with wkhtmltopdf.", decision("x-wkhtml", "wkhtmltopdf")),
            remember(3, "x-legal-name", "Legal name on invoices: Acme Billing GmbH."),
        ),
    ),
    Scenario(
        name="release-cli",
        domain="devtools",
        summary="Rust CLI: release notes subcommand",
        prompts=30,
        plants=(
            said(
                1,
                "We're adding a `release notes` subcommand. Don't add new dependencies without asking me "
                "first, compile times are already bad.",
                constraint("c-deps", "new dependencies without asking"),
            ),
            said(
                3,
                "Decision: changelog entries come from conventional commits, grouped by type.",
                decision("d-conventional", "conventional commits"),
            ),
            edits(
                5,
                ("p-cli-mod", "src/cli/mod.rs"),
                ("p-notes", "src/cli/release_notes.rs"),
                prompt="scaffold it",
            ),
            agent(
                8,
                "I found that `git2` walks commits in reverse topological order by default, which is why the "
                "changelog looked shuffled.",
                finding("f-topo", "reverse topological order"),
                prompt="why is the order all over the place?",
            ),
            said(
                11,
                "Do we need to support monorepos with multiple crates in v1?",
                question(
                    "q-monorepo", "monorepos with multiple crates", stale="monorepos with multiple crates"
                ),
            ),
            remember(14, "r-msrv", "MSRV is 1.74: check with `cargo +1.74 check` before merging."),
            said(
                17,
                "Everything that goes to stdout must be machine-parseable when --json is passed; human text "
                "goes to stderr.",
                constraint("c-json", "machine-parseable"),
            ),
            said(
                19,
                "Answer on the monorepo question: not in v1, single crate only, we'll revisit in Q3.",
                answer("a-monorepo", "single crate only", closes="q-monorepo"),
            ),
            said(
                22,
                "Let's render the notes with a tera template.",
                decision("d-tera", "tera template", stale="tera template"),
            ),
            said(
                26,
                "Change of plan: a templating engine is overkill, format the notes with plain `write!` "
                "calls.",
                decision("d-write", "write!", closes="d-tera"),
            ),
            last(
                30,
                "i-last",
                "Cut a 0.9.0-rc.1 tag locally but don't push it; paste me the generated notes so I can "
                "proofread them.",
            ),
        ),
        decoy_prompts=4,
        decoy=(
            said(
                1,
                "Shell completions today: completions must not shell out at runtime.",
                constraint("x-no-shell-out", "shell out at runtime"),
            ),
            said(2, "Generate them with clap_complete.", decision("x-clap-complete", "clap_complete")),
            remember(3, "x-fish", "Fish completions go to share/fish/vendor_completions.d."),
        ),
    ),
    Scenario(
        name="firmware-sensor",
        domain="embedded",
        summary="STM32L0 humidity sensor node over LoRa",
        prompts=55,
        plants=(
            said(
                2,
                "This runs on an STM32L0 with 20 KB of RAM, so no dynamic allocation: malloc is off limits "
                "after init.",
                constraint("c-malloc", "malloc"),
            ),
            said(
                5,
                "We'll sample the humidity sensor every 30 seconds and batch 10 readings per LoRa uplink.",
                decision("d-30s", "every 30 seconds", stale="every 30 seconds"),
            ),
            edits(
                9,
                ("p-sht4x", "src/drivers/sht4x.c"),
                ("p-uplink", "src/app/uplink.c"),
                prompt="write the driver",
            ),
            agent(
                13,
                "I found that the I2C bus hangs because the SHT4x needs 1 ms after a soft reset before the "
                "next command; we were polling after 100 µs.",
                finding("f-soft-reset", "soft reset"),
                prompt="the bus locks up after a reset, any idea?",
            ),
            said(
                17,
                "Make sure you always keep the ISR handlers under 50 cycles of work; defer everything else "
                "to "
                "the main loop.",
                constraint("c-isr", "50 cycles"),
            ),
            said(
                21,
                "Open question: is the LoRa duty cycle limit on our EU868 sub-band 1% or 0.1%?",
                question("q-duty", "duty cycle limit", stale="duty cycle limit"),
            ),
            remember(25, "r-board-rev", "Board rev C has the sensor on I2C2, rev B on I2C1."),
            said(
                29,
                "The low-power mode isn't kicking in. Please check the clock config. Hard rule: we can't "
                "touch "
                "the radio stack under lib/lora/, it's certified as is. Then measure the sleep current with "
                "the PPK.",
                constraint("c-lora", "lib/lora/"),
            ),
            said(
                33,
                "Change of plan from the field trial: sample once a minute and send 5 readings per uplink, "
                "the batteries drained too fast.",
                decision("d-60s", "once a minute", closes="d-30s"),
            ),
            said(
                40,
                "Found it in the regional parameters: our sub-band g1 allows 1%, so one uplink per 5 minutes "
                "is fine.",
                answer("a-duty", "sub-band g1", closes="q-duty"),
            ),
            agent(
                45,
                "I decided to drive the sampling from the RTC wakeup timer instead of SysTick, so STOP mode "
                "isn't interrupted.",
                decision("d-rtc", "RTC wakeup timer"),
                prompt="what wakes the MCU now?",
            ),
            edits(49, ("p-stop", "src/power/stop_mode.c"), prompt="ok"),
            last(
                55,
                "i-last",
                "Flash board #4 with the debug build, run it overnight on the bench supply and log the "
                "current "
                "to data/overnight_4.csv.",
            ),
        ),
        decoy_prompts=5,
        decoy=(
            said(
                1,
                "Bootloader update today. Never erase sector 0, the recovery loader lives there.",
                constraint("x-sector", "sector 0"),
            ),
            said(2, "Use CRC32 over the whole image for verification.", decision("x-crc", "CRC32")),
            remember(4, "x-jtag", "The JTAG adapter is the blue one labelled J-3."),
        ),
    ),
    Scenario(
        name="metrics-dashboard",
        domain="frontend",
        summary="Svelte latency panel on the metrics dashboard",
        prompts=20,
        plants=(
            said(
                1,
                "We're building the latency panel. Please never query the raw requests table from the "
                "dashboard; use the 1-minute rollups (requests_1m).",
                constraint("c-rollups", "requests_1m"),
            ),
            said(3, "Let's chart it with uPlot, it copes with 100k points.", decision("d-uplot", "uPlot")),
            edits(
                5,
                ("p-panel", "src/lib/panels/LatencyPanel.svelte"),
                ("p-query", "src/lib/queries/latency.ts"),
                prompt="build the panel",
            ),
            agent(
                7,
                "I found that the p99 line jumps because the rollup stores p99 per minute and we were "
                "averaging percentiles, which isn't valid.",
                finding("f-percentiles", "averaging percentiles"),
                prompt="why does p99 look so spiky?",
            ),
            said(
                9,
                "Should the time picker default to the last 6 hours or the last 24 hours?",
                question("q-default-range", "last 6 hours or the last 24 hours", stale="last 6 hours"),
            ),
            remember(11, "r-palette", "Series colour palette: Okabe–Ito, colour-blind safe."),
            said(
                14,
                "PM says default to a full day and remember the last choice per user.",
                answer("a-default-range", "remember the last choice per user", closes="q-default-range"),
            ),
            said(
                16,
                "Make sure all numbers on the dashboard show their units (ms, req/s), no bare numbers.",
                constraint("c-units", "no bare numbers"),
            ),
            last(
                20,
                "i-last",
                "Wire the panel into the Overview page behind the ?beta=1 query flag and take a screenshot "
                "with "
                "a day of staging data.",
            ),
        ),
        decoy_prompts=4,
        decoy=(
            said(
                1,
                "Alerting rules today: every alert must link to a runbook.",
                constraint("x-runbook", "link to a runbook"),
            ),
            said(2, "Use Alertmanager inhibition during maintenance.", decision("x-inhibit", "inhibition")),
            remember(3, "x-grafana", "The Grafana folder for SLOs is 'SLO – Core'."),
        ),
    ),
)


# ---------------------------------------------------------------------------------------------
# Filler turns
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FillerTurn:
    prompt: str
    reply: str  # readable blocks after the user block, each ending with a blank line


SKIP_PROMPT_PREFIXES = ("<", "[", "Caveat:")
SKIP_MARKERS = ("[Compact summary]", "--- context compacted")
ARTIFACT_PREFIXES = ("User: <command-", "User: <local-command")


def _prompt_of(record: dict[str, object], text: str) -> str | None:
    """The user's typed prompt in a rendered user record, if it has one (not a tool result, a
    slash command, an IDE notice or an interruption)."""
    if record.get("type") != "user" or not text.startswith("User: "):
        return None
    for part in text[len("User: ") :].split("\n\nUser: "):
        prompt = part.strip()
        if prompt and not prompt.startswith(SKIP_PROMPT_PREFIXES):
            return prompt
    return None


def _read_records(file: Path) -> list[dict[str, object]]:
    records = []
    with file.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
    return records


def _turns_of(records: list[dict[str, object]]) -> list[FillerTurn]:
    state: dict[str, object] = {}
    turns: list[FillerTurn] = []
    prompt: str | None = None
    reply: list[str] = []

    def close() -> None:
        if prompt is None:
            return
        text = "".join(reply)
        if len(text) > FILLER_TURN_CHARS:
            kept: list[str] = []
            size = 0
            for part in reply:
                if kept and size + len(part) > FILLER_TURN_CHARS:
                    break
                kept.append(
                    part if len(part) <= FILLER_TURN_CHARS else part[:FILLER_TURN_CHARS].rstrip() + "\n\n"
                )
                size += len(kept[-1])
            text = "".join(kept)
        if len(prompt) <= FILLER_PROMPT_CHARS and not any(m in prompt + text for m in SKIP_MARKERS):
            turns.append(FillerTurn(prompt, text))

    for record in records:
        text = render("claude-code", record, state).text
        if not text:
            continue
        typed = _prompt_of(record, text)
        if typed is not None:
            close()
            prompt, reply = typed, []
        elif prompt is not None and not text.startswith(ARTIFACT_PREFIXES):
            reply.append(text)
    close()
    return turns


@cache
def corpus_turns(root: Path = CORPUS) -> tuple[FillerTurn, ...]:
    """Real turns from the corpus's main transcripts (sub-agent files give nothing); () when absent."""
    if not root.is_dir():
        return ()
    turns: list[FillerTurn] = []
    for file in sorted(root.glob("*/*.jsonl")):
        if not file.name.startswith("agent-"):
            turns += _turns_of(_read_records(file))
    return tuple(turns)


def _bash(command: str, output: str) -> str:
    return blocks(tool_line("Bash", {"command": command}), result_line(output))


SYNTHETIC: tuple[FillerTurn, ...] = (
    FillerTurn("run the tests again", _bash("make test", "collected 214 items ... 214 passed in 38.2s")),
    FillerTurn(
        "what's left on this?",
        blocks("Assistant: Two things: the edge case for empty input and the docs for the new flag."),
    ),
    FillerTurn(
        "show me the diff", _bash("git diff --stat", " 3 files changed, 41 insertions(+), 12 deletions(-)")
    ),
    FillerTurn("looks good", blocks("Assistant: Great, moving on to the next item.")),
    FillerTurn(
        "can you explain what this function does?",
        blocks(
            "Assistant: It walks the list once, groups the entries by their key and returns the groups "
            "sorted by size, largest first. The second loop only exists for the legacy format."
        ),
    ),
    FillerTurn(
        "commit that with a sensible message",
        _bash(
            "git commit -am 'Handle empty input in the parser'",
            "[main 4c1d2e9] Handle empty input in the parser",
        ),
    ),
    FillerTurn(
        "hmm, that test is still failing",
        _bash("make test ARGS=-k parser", "FAILED test_parser.py::test_trailing_comma - AssertionError")
        + blocks("Assistant: The trailing comma case still returns an empty token; fixing the tokenizer."),
    ),
    FillerTurn("lint it", _bash("make lint", "All checks passed!")),
    FillerTurn(
        "is there a simpler way to do this?",
        blocks("Assistant: Yes: the standard library already has this; we can drop the helper entirely."),
    ),
    FillerTurn(
        "rename that variable to something clearer", blocks(tool_line("Edit", {"file_path": "README.md"}))
    ),
    FillerTurn(
        "what does the log say?",
        _bash(
            "tail -n 20 server.log", "INFO started\nINFO listening on :8080\nWARN slow request 1.2s /health"
        ),
    ),
    FillerTurn("ok, next", blocks("Assistant: Next up is the error handling in the loader.")),
)


# ---------------------------------------------------------------------------------------------
# Building the sessions
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlantedFact:
    scenario: str
    id: str
    kind: str
    by: str
    turn: int
    probes: tuple[str, ...]
    stale: str | None
    status: str  # current, superseded or answered
    closed_by: str | None = None
    closed_at: int | None = None
    decoy: bool = False


@dataclass(frozen=True)
class Turn:
    number: int
    prompt: str
    text: str  # this turn in the readable transcript: the user block, then the reply's blocks
    remembers: tuple[str, ...] = ()
    digests: tuple[dict[str, object], ...] = ()


@dataclass(frozen=True)
class Session:
    session_id: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Script:
    scenario: Scenario
    cwd: str
    main: Session
    decoy: Session
    facts: tuple[PlantedFact, ...]  # the main session's
    decoy_facts: tuple[PlantedFact, ...]
    pauses: frozenset[int] = field(default_factory=frozenset)

    @property
    def current(self) -> list[PlantedFact]:
        return [f for f in self.facts if f.status == CURRENT]

    @property
    def closed(self) -> list[PlantedFact]:
        return [f for f in self.facts if f.status != CURRENT]


def normalize(text: str) -> str:
    """How probes and blocks are compared: NFC, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


@cache
def probe_pattern(probe: str) -> re.Pattern[str]:
    """A probe matches as a substring, but not inside a longer word at its alphanumeric ends
    ("UTC" is not found in "outcome")."""
    wanted = normalize(probe)
    head = r"(?<!\w)" if wanted[:1].isalnum() or wanted[:1] == "_" else ""
    tail = r"(?!\w)" if wanted[-1:].isalnum() or wanted[-1:] == "_" else ""
    return re.compile(head + re.escape(wanted) + tail)


def found(text: str, probe: str) -> bool:
    """``probe`` in ``text`` (case-insensitive, whitespace collapsed, not inside a longer word)."""
    return found_normalized(normalize(text), probe)


def found_normalized(normalized: str, probe: str) -> bool:
    """``found`` on a text already passed through ``normalize``."""
    return probe_pattern(probe).search(normalized) is not None


def _resolve(scenario: Scenario, plants: tuple[Plant, ...], decoy: bool) -> tuple[PlantedFact, ...]:
    closers = {f.closes: (f.id, p.turn) for p in plants for f in p.facts if f.closes}
    resolved = []
    for plant in plants:
        for fact in plant.facts:
            status, closed_by, closed_at = CURRENT, None, None
            if fact.id in closers:
                closed_by, closed_at = closers[fact.id]
                status = ANSWERED if fact.kind == "question" else SUPERSEDED
            resolved.append(
                PlantedFact(
                    scenario.name,
                    fact.id,
                    fact.kind,
                    plant.by,
                    plant.turn,
                    fact.probes,
                    fact.stale,
                    status,
                    closed_by,
                    closed_at,
                    decoy,
                )
            )
    return tuple(resolved)


def _ack(rng: random.Random) -> str:
    return rng.choice(
        (
            "Got it.",
            "Understood, noted.",
            "Okay, I'll keep that in mind.",
            "Sounds good.",
            "Noted, thanks.",
            "Will do.",
        )
    )


def _plant_reply(plant: Plant, rng: random.Random, session_id: str) -> str:
    parts: list[str] = []
    if plant.reply:
        parts.append(f"Assistant: {plant.reply}")
    elif plant.by == USER:
        parts.append(f"Assistant: {_ack(rng)}")
    for tool in plant.tools:
        parts += [tool_line(tool.name, {"file_path": tool.input}), result_line(tool.result)]
    if plant.remember is not None:
        parts += [tool_line("mcp__continuity__remember", {"content": plant.remember}), result_line("sent")]
    if plant.digest is not None:
        parts += [
            tool_line("mcp__continuity__session_digest", plant.digest),
            result_line(f"checkpoint written for session {session_id}"),
        ]
    return blocks(*parts)


def _session(
    plants: tuple[Plant, ...],
    prompts: int,
    session_id: str,
    filler: list[FillerTurn],
    rng: random.Random,
) -> Session:
    by_turn: dict[int, list[Plant]] = {}
    for plant in plants:
        by_turn.setdefault(plant.turn, []).append(plant)
    turns = []
    for number in range(1, prompts + 1):
        here = by_turn.get(number, [])
        if not here:
            pick = filler[rng.randrange(len(filler))]
            prompt, reply = pick.prompt, pick.reply
        else:
            prompts_here = [p.prompt for p in here if p.prompt]
            prompt = prompts_here[0] if prompts_here else rng.choice(GO_ON)
            reply = "".join(_plant_reply(p, rng, session_id) for p in here)
        turns.append(
            Turn(
                number,
                prompt,
                blocks(f"User: {prompt}") + reply,
                tuple(p.remember for p in here if p.remember is not None),
                tuple(p.digest for p in here if p.digest is not None),
            )
        )
    return Session(session_id, tuple(turns))


def _probes(fact: PlantedFact) -> list[str]:
    return [*fact.probes, *([fact.stale] if fact.stale else [])]


def _usable_filler(scenario: Scenario, pool: tuple[FillerTurn, ...]) -> list[FillerTurn]:
    probes = [
        p
        for plant in (*scenario.plants, *scenario.decoy)
        for f in plant.facts
        for p in (*f.probes, f.stale)
        if p
    ]
    usable = [t for t in pool if not any(found_normalized(_normalized_turn(t), p) for p in probes)]
    return usable or [
        t for t in SYNTHETIC if not any(found_normalized(_normalized_turn(t), p) for p in probes)
    ]


@cache
def _normalized_turn(turn: FillerTurn) -> str:
    return normalize(turn.prompt + "\n" + turn.reply)


def build(scenario: Scenario, tag: str = "", pool: tuple[FillerTurn, ...] | None = None) -> Script:
    """The concrete sessions of ``scenario`` (deterministic); ``tag`` makes its ids and project unique."""
    suffix = f"-{tag}" if tag else ""
    rng = random.Random(f"recovery:{scenario.name}")
    filler_pool = corpus_turns() if pool is None else pool
    filler = _usable_filler(scenario, filler_pool + SYNTHETIC if filler_pool else SYNTHETIC)
    decoy = _session(scenario.decoy, scenario.decoy_prompts, f"{scenario.name}-decoy{suffix}", filler, rng)
    main = _session(scenario.plants, scenario.prompts, f"{scenario.name}-main{suffix}", filler, rng)
    pauses = frozenset(n for n in range(PAUSE_EVERY, scenario.prompts, PAUSE_EVERY))
    return Script(
        scenario,
        scenario.cwd + suffix,
        main,
        decoy,
        _resolve(scenario, scenario.plants, decoy=False),
        _resolve(scenario, scenario.decoy, decoy=True),
        pauses,
    )


def validate(script: Script) -> list[str]:
    """Problems with a built script: a probe not found where it is planted, or found elsewhere in the
    session (then recall or staleness would be measured on the wrong statement)."""
    scenario = script.scenario
    problems: list[str] = []
    plants_of = {f.id: p for p in (*scenario.plants, *scenario.decoy) for f in p.facts}
    segments: list[tuple[Plant | None, str]] = []
    for session, plants in ((script.main, scenario.plants), (script.decoy, scenario.decoy)):
        planted_turns = {p.turn for p in plants}
        filler = {turn.text for turn in session.turns if turn.number not in planted_turns}
        segments += [(None, normalize(text)) for text in filler]
        segments += [(p, normalize(text)) for p in plants for text in p.texts()]
    ids = [f.id for f in (*script.facts, *script.decoy_facts)]
    if len(ids) != len(set(ids)):
        problems.append(f"{scenario.name}: duplicate fact ids")
    last_turn = max(p.turn for p in scenario.plants)
    if last_turn != scenario.prompts or not any(
        f.kind == "instruction" for p in scenario.plants if p.turn == last_turn for f in p.facts
    ):
        problems.append(f"{scenario.name}: the last prompt must be the planted last instruction")
    for fact in (*script.facts, *script.decoy_facts):
        own = plants_of[fact.id]
        if fact.status != CURRENT and not fact.stale:
            problems.append(f"{scenario.name}/{fact.id}: closed without a stale probe")
        for probe in _probes(fact):
            if not any(found(text, probe) for text in own.texts()):
                problems.append(f"{scenario.name}/{fact.id}: probe {probe!r} not in its own statement")
            for plant, text in segments:
                if plant is own or (plant is not None and fact.id in {f.id for f in plant.facts}):
                    continue
                if found_normalized(text, probe):
                    where = f"turn {plant.turn}" if plant else "a filler turn"
                    problems.append(f"{scenario.name}/{fact.id}: probe {probe!r} also in {where}")
                    break
    return problems


def build_all(
    names: Iterable[str] | None = None, tag: str = "", scenarios: Iterable[Scenario] = SCENARIOS
) -> list[Script]:
    """The scripts of ``scenarios`` (the main set by default; ``bench.recovery_heldout.HELDOUT``
    for the held-out set), all of them or those named."""
    chosen = tuple(scenarios)
    wanted = set(names) if names is not None else None
    unknown = (wanted or set()) - {s.name for s in chosen}
    if unknown:
        raise KeyError(f"unknown scenarios: {sorted(unknown)}")
    return [build(s, tag) for s in chosen if wanted is None or s.name in wanted]
