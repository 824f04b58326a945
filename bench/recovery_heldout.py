# ruff: noqa: RUF001 - the scenarios use non-ASCII text on purpose (paths, names, dashes)
"""Held-out scenarios for the recovery-quality suite: five sessions the fact extractor has never seen.

The twelve scenarios of ``bench/recovery_scenarios.py`` were looked at while the service's fact
extractor was tuned, so their figures may flatter it. These five were written afterwards, in other
domains (game netcode, a compiler, e-commerce search, a hospital lab integration, a CI migration) and
with phrasings of their own, and are scored apart (``recovery_*_heldout`` in
``bench/bench_recovery.py``). Do not tune the extractor on their misses: once it has been, write a
new held-out set instead.

They use the same builders, filler, decoy session and validation as the main scenarios
(``build_all(scenarios=HELDOUT)``).
"""

from __future__ import annotations

from bench.recovery_scenarios import (
    Scenario,
    agent,
    answer,
    constraint,
    decision,
    digest,
    edits,
    finding,
    last,
    next_step,
    question,
    remember,
    said,
)

# ---------------------------------------------------------------------------------------------
# Game dev: rollback netcode for a boat-racing game (36 prompts)
# ---------------------------------------------------------------------------------------------

SKIFF_NETCODE = Scenario(
    name="skiff-netcode",
    domain="gamedev",
    prompts=36,
    summary="Rollback netcode for the race mode of a Bevy boat-racing game.",
    plants=(
        said(
            1,
            "ok so today's job: rollback netcode for race mode. quick background, the sim ticks at a "
            "fixed 60 Hz and inputs go through the GGRS session we set up last sprint. one thing that "
            "is really important before you write anything: nothing inside the simulation is allowed "
            "to use f32 sin/cos/sqrt from std, it all has to go through the fixed-point helpers in "
            "sim/fx.rs, because the ARM builds and x86 builds round differently and replays desync "
            "after a few hundred frames. anyway, can you start by reading how the input buffer works "
            "right now and tell me what you'd change",
            constraint("c-fixed", "fixed-point helpers", "sim/fx.rs"),
        ),
        agent(
            3,
            "I read through `net/inputs.rs`. The remote input queue is a plain `VecDeque` capped at "
            "eight entries, and when a packet shows up for a frame that already fell off the front "
            "it's silently discarded. So a late input never triggers a resimulation; the peer just "
            "keeps its predicted input forever, which explains the 'ghost steering' reports.",
            finding("f-discard", "silently discarded"),
            prompt="what did you find?",
        ),
        said(
            5,
            "right. let's cap the rollback window at 7 frames, if a peer is later than that we stall "
            "them instead of rolling back further",
            decision("d-window7", "7 frames", stale="7 frames"),
        ),
        said(
            7,
            "dumb question maybe but does ggrs compute the desync checksum by itself or is that on us?",
            question("q-checksum", "desync checksum", stale="desync checksum"),
        ),
        agent(
            9,
            "Looked at the GGRS source: it compares checksums only if you pass one into "
            "`save_game_state`, it never computes them itself. So that's on us. We already vendor "
            "`xxhash-rust`, so I'll hash the serialized `SimState` with xxh3 on every confirmed frame, "
            "no new dependency needed.",
            answer("a-checksum", "never computes them itself", closes="q-checksum"),
            decision("d-xxh3", "xxh3"),
            prompt="can you check?",
        ),
        edits(
            12,
            ("p-checksum", "crates/sim/src/checksum.rs"),
            ("p-aland", "assets/tracks/åland_harbour.ron"),
            prompt="go for it, and wire the harbour track in as the test map",
        ),
        remember(
            14,
            "r-replays",
            "Replays recorded before build 0.9.4 use the old input format; never load them in sync tests.",
        ),
        said(
            16,
            "btw please don't pull in new crates without asking me. every dependency goes through "
            "the console cert audit again and that costs us two weeks",
            constraint("c-crates", "new crates"),
        ),
        said(
            19,
            "something I haven't figured out: when we roll back, do spectators see the rewind on "
            "their screen?",
            question("q-spectators", "see the rewind", stale="see the rewind"),
        ),
        said(
            22,
            "ugh, tried it on the Sydney–Frankfurt link with Mirela and we stall basically every lap. "
            "make the window big enough for ~200 ms RTT, so 12 frames",
            decision("d-window12", "12 frames", closes="d-window7"),
        ),
        agent(
            24,
            "Found the actual desync: `Boat::apply_wake` iterates over a `HashMap<EntityId, Wake>`, and "
            "the iteration order differs between processes, so wake forces get summed in a different "
            "order on each peer. I'm switching it to a `BTreeMap` keyed by entity id.",
            finding("f-wake", "apply_wake", "BTreeMap"),
            prompt="the soak test still diverges around frame 3000, any idea why?",
        ),
        said(
            27,
            "Mirela says spectators are fed a 30-frame delayed stream that only ever contains "
            "confirmed frames. so no, they never witness a rollback",
            answer("a-spectators", "30-frame delayed stream", closes="q-spectators"),
        ),
        agent(
            29,
            "One thing still open: do the boat-damage particles need to be part of the rolled-back "
            "state, or can cosmetic effects stay purely client-side and just be allowed to differ?",
            question("q-particles", "cosmetic effects"),
            prompt="anything else you need from me?",
        ),
        edits(31, ("p-soak", "crates/sim/tests/rollback_soak.rs"), prompt="add a soak test for that"),
        said(
            33,
            "when this is merged the next thing is running the soak on the Steam Deck dev kit",
            next_step("n-deck", "Steam Deck dev kit"),
        ),
        last(
            36,
            "i-last",
            "Run the 10k-frame sync test with two local peers and paste me the first frame where the "
            "checksums diverge, if there is one. Leave the lobby code alone.",
        ),
    ),
    decoy_prompts=4,
    decoy=(
        said(
            1,
            "for the pause and settings menus use the 9-slice panels from the UI kit",
            decision("x-nineslice", "9-slice panels"),
        ),
        said(
            2,
            "menu text stays in Atkinson Hyperlegible, accessibility review asked for it",
            constraint("x-font", "Atkinson Hyperlegible"),
        ),
        remember(4, "x-glyphs", "Controller glyphs come from the Steamworks input API, not our own atlas."),
    ),
)

# ---------------------------------------------------------------------------------------------
# Compiler: exhaustiveness checking for a small language (28 prompts)
# ---------------------------------------------------------------------------------------------

KESTREL_MATCH = Scenario(
    name="kestrel-match",
    domain="compiler",
    prompts=28,
    summary="Pattern-match exhaustiveness checking in the Kestrel compiler's type checker.",
    plants=(
        said(
            1,
            "This week: exhaustiveness checking for `match` in the typechecker. Diagnostics are "
            "snapshot tested with insta, and whenever a message changes, the updated snapshot goes "
            "in the same commit as the change, reviewed by hand — no blanket `--accept`.",
            constraint("c-snapshots", "reviewed by hand"),
        ),
        agent(
            2,
            "The existing check in `typeck/match.rs` only compares the outermost constructor of each "
            "arm, so `Some(Ok(_))` plus `None` is accepted even though `Some(Err(_))` is never "
            "covered.",
            finding("f-outermost", "outermost constructor"),
            prompt="what does the current check actually do?",
        ),
        said(
            4,
            "let's not invent something. implement the usefulness algorithm from Maranget's paper, "
            "like rustc and OCaml do",
            decision("d-maranget", "Maranget"),
        ),
        agent(
            6,
            "Before I wire up diagnostics, I need a call from you: in the 0.x releases, should a "
            "non-exhaustive match stop compilation, or only warn?",
            question("q-severity", "stop compilation, or only warn", stale="stop compilation, or only warn"),
            prompt="ok, algorithm's in. anything blocking?",
        ),
        edits(
            8,
            ("p-usefulness", "compiler/src/typeck/usefulness.rs"),
            ("p-diag", "compiler/src/diagnostics/non_exhaustive.rs"),
        ),
        said(
            9,
            "make it a hard error. we're pre-1.0, breaking people is allowed",
            answer("a-severity", "hard error", closes="q-severity"),
        ),
        said(
            11,
            "when you print the missing cases, list three at most and then '…and N more'",
            decision("d-three", "three at most", stale="three at most"),
        ),
        remember(
            13, "r-ints", "Integer literal patterns have an infinite domain: never enumerate i64 values."
        ),
        edits(
            15,
            ("p-ano", "tests/ui/exhaustive/señales_año.kst"),
            prompt="add a ui test with unicode variant names",
        ),
        agent(
            16,
            "For integer and char patterns I'll split ranges lazily, the way rustc's `IntRange` does, "
            "instead of materialising every boundary up front.",
            decision("d-ranges", "split ranges lazily"),
            prompt="how are you handling ranges?",
        ),
        said(
            19,
            "hm, Jonas points out rustc lists up to four before eliding. familiarity wins, let's do four",
            decision("d-four", "up to four", closes="d-three"),
        ),
        said(
            21,
            "where in the pipeline does this pass belong, ahead of trait resolution or behind it? "
            "guards make me unsure",
            question("q-order", "ahead of trait resolution", stale="ahead of trait resolution"),
        ),
        agent(
            23,
            "I went through `driver.rs`: struct patterns need resolved field types, so the check can "
            "only run once traits are resolved. I've put it right before MIR building.",
            answer("a-order", "right before MIR building", closes="q-order"),
            prompt="figure it out from the driver",
        ),
        agent(
            25,
            "Remaining piece after this: guarded arms. An arm with an `if` guard must not count "
            "toward coverage, since the guard can fail at runtime.",
            next_step("n-guards", "guarded arms"),
            prompt="what's left?",
        ),
        last(
            28,
            "i-last",
            "Update the insta snapshots for the new messages, run cargo test -p kestrel-typeck, and "
            "show me only the snapshot diffs.",
        ),
    ),
    decoy_prompts=3,
    decoy=(
        said(
            1,
            "the REPL keeps its history in ~/.kestrel_history, don't move that file",
            constraint("x-history", "~/.kestrel_history"),
        ),
        said(2, "use rustyline for line editing in the REPL", decision("x-rustyline", "rustyline")),
    ),
)

# ---------------------------------------------------------------------------------------------
# E-commerce search: relevance for the German and Nordic storefronts (84 prompts, with a digest)
# ---------------------------------------------------------------------------------------------

SHOP_RELEVANCE = Scenario(
    name="shop-relevance",
    domain="search",
    prompts=84,
    summary="Relevance tuning of an OpenSearch product search for the German and Nordic shops.",
    plants=(
        said(
            1,
            "Kicking off the relevance work for the DE and Nordic storefronts. Setup: OpenSearch 2.11 "
            "behind search-api (Kotlin/Ktor), one index per locale. Marketing's complaint is that "
            "'boots' returns boot polish and laces before any actual boots. Two things we can't "
            "break while doing this: p95 of /search has to stay below 120 ms at today's ~400 rps "
            "(it's in the SLA with the storefront team), and full reindexes are only allowed "
            "outside business hours, CET. With that in mind, go look at how the query gets built.",
            constraint("c-p95", "120 ms"),
            constraint("c-reindex", "outside business hours"),
        ),
        agent(
            3,
            "The query is a single `multi_match` of type `best_fields` over `title^2`, `description` "
            "and `brand`. Nothing in it knows about categories, so 'boots' scores polish highly "
            "simply because the word sits in a short title.",
            finding("f-bestfields", "best_fields"),
            prompt="and?",
        ),
        said(
            6,
            "ok. so we learn per-query category priors offline from click data, refreshed nightly, "
            "and boost with them",
            decision("d-priors", "category priors"),
        ),
        said(
            9,
            "wait, is click tracking even attributed to the query? I have a feeling we only log the "
            "term and not which result position got clicked",
            question("q-clicks", "which result position", stale="which result position"),
        ),
        agent(
            12,
            "Checked `analytics.search_events` in the warehouse: every click row has `query`, "
            "`product_id` and `rank`, going back to March. Attribution per query and rank is there.",
            answer("a-clicks", "search_events", closes="q-clicks"),
            prompt="can you check the warehouse?",
        ),
        said(
            14,
            "for German compounds (Wanderstiefel, Gummistiefel and friends) let's use the "
            "dictionary_decompounder filter with the word list the linguistics team maintains",
            decision("d-dictdecomp", "dictionary_decompounder", stale="dictionary_decompounder"),
        ),
        edits(
            17,
            ("p-analyzer", "search-api/src/main/resources/analysis/de_compound.json"),
            ("p-wordlist", "search-api/src/main/resources/analysis/wörterbuch_de.txt"),
        ),
        remember(
            20,
            "r-staging",
            "Staging cluster is search-stg-2; search-stg-1 is being decommissioned, never point tests at it.",
        ),
        said(
            23,
            "heads up from the Oslo folks: titles in the Nordic shops have ø, å, æ and those must not "
            "get ASCII-folded in the title field. 'sø' and 'so' are different searches for them",
            constraint("c-fold", "ASCII-folded"),
        ),
        agent(
            26,
            "I can't settle this one alone: should the prior be applied as a multiplier inside the "
            "main query, or as a second-pass rescore on the top 200 hits?",
            question("q-apply", "second-pass rescore", stale="second-pass rescore"),
            prompt="priors table is loaded. next?",
        ),
        said(
            29,
            "function_score. Tomás benchmarked rescoring last quarter and it added ~40 ms with our window",
            answer("a-apply", "function_score", closes="q-apply"),
        ),
        said(
            33,
            "schedule the nightly prior computation on Airflow next to the other ranking jobs",
            decision("d-airflow", "on Airflow", stale="on Airflow"),
        ),
        agent(
            37,
            "The word-list approach splits 'Stiefelknecht' into 'Stiefel' + 'knecht' and 'Sohle' out "
            "of 'Sohlenschutz' in odd places. I'm switching the German analyzer to "
            "`hyphenation_decompounder` with the FOP hyphenation grammar plus the same word list: it "
            "only emits subwords at valid hyphenation points. The golden-set NDCG went from 0.58 to "
            "0.61 with it.",
            decision("d-hyphenation", "hyphenation_decompounder", closes="d-dictdecomp"),
            prompt="the compound splitting looks weird on some queries, can you take a look",
        ),
        agent(
            40,
            "Profiled it: the painless script that reads the prior costs about 18 ms at p95. Storing "
            "the prior in a `rank_feature` field and using a `rank_feature` query instead costs ~3 ms.",
            finding("f-rankfeature", "rank_feature"),
            prompt="how expensive is the boost?",
        ),
        digest(
            45,
            {
                "summary": "Category-aware boosting for the DE/Nordic product search: priors from "
                "clicks, German decompounding, Nordic folding rules.",
                "decisions": [
                    {
                        "decision": "The category boost is capped at 1.8x so brand queries still win.",
                        "rationale": "Uncapped priors pushed 'Dr. Martens' queries to generic boots.",
                    }
                ],
                "next_steps": ["Run an A/B test on the .de shop for two weeks before the Nordic rollout."],
                "questions": [
                    "Does the merch team's synonym list (Stiefel ⇄ Boots) belong at index time or query time?"
                ],
            },
            decision("d-cap", "capped at 1.8x"),
            next_step("n-ab", "A/B test on the .de shop"),
            question("q-synonyms", "index time or query time", stale="index time or query time"),
            prompt="write a digest before we go on",
        ),
        said(
            52,
            "forget the scheduler thing I said, data platform is retiring it in Q3. the prior job "
            "becomes a Dagster asset instead",
            decision("d-dagster", "Dagster asset", closes="d-airflow"),
        ),
        edits(56, ("p-priorjob", "jobs/category_priors/assets.py")),
        said(
            60,
            "synonyms: query-time only. merch edits that list daily and we're not reindexing for it",
            answer("a-synonyms", "query-time only", closes="q-synonyms"),
        ),
        said(
            63,
            "legal came back and for logged-out users in the EU shops we can't personalise anything, "
            "so the priors have to be global per query, not per user or per segment",
            constraint("c-global", "global per query"),
        ),
        agent(
            70,
            "Next I'd backfill the priors for the top 50k queries during the overnight window, then "
            "compare against the golden set.",
            next_step("n-backfill", "top 50k queries"),
            prompt="what's the plan for the existing queries?",
        ),
        remember(
            76,
            "r-golden",
            "Golden set: tests/relevance/stiefel_golden.yaml, 120 judged queries; NDCG@10 must stay "
            "at or above 0.62.",
        ),
        last(
            84,
            "i-last",
            "Deploy the analyzer change to search-stg-2 only, reindex de_DE there, and give me NDCG@10 "
            "on the golden set before and after.",
        ),
    ),
    decoy_prompts=5,
    decoy=(
        said(
            1,
            "autocomplete suggestions come out of the suggest_v3 index, leave it as is",
            decision("x-suggest", "suggest_v3"),
        ),
        said(3, "the suggest endpoint needs to answer in under 30 ms", constraint("x-30ms", "under 30 ms")),
        remember(5, "x-owner", "Autocomplete belongs to the Kraków team; ping Zofia before changing it."),
    ),
)

# ---------------------------------------------------------------------------------------------
# Healthcare integration: HL7v2 lab results to FHIR (66 prompts)
# ---------------------------------------------------------------------------------------------

LAB_BRIDGE = Scenario(
    name="lab-fhir-bridge",
    domain="health",
    prompts=66,
    summary="A bridge from the lab system's HL7v2 ORU feed to FHIR Observations in the new EHR.",
    plants=(
        said(
            1,
            "We're building the bridge that takes ORU^R01 lab results off the Sunquest feed and posts "
            "them as FHIR Observations to the new EHR. The privacy officer gave us two rules that "
            "aren't up for discussion: patient identifiers never end up in log output, not even "
            "hashed, and no data leaves the hospital network, which rules out SaaS validators and "
            "public terminology servers. Everything else is our call. Let's start with the MLLP "
            "listener.",
            constraint("c-logs", "never end up in log output"),
            constraint("c-network", "leaves the hospital network"),
        ),
        agent(
            3,
            "I'll write the MLLP framing (0x0B … 0x1C 0x0D) myself on top of asyncio streams rather "
            "than pulling in a server library; it's about forty lines and easy to test.",
            decision("d-asyncio", "asyncio streams"),
            prompt="how do you want to do the listener?",
        ),
        said(
            5,
            "not sure about one thing: do we send the ACK to the lab before or after the FHIR POST "
            "went through?",
            question("q-ack", "before or after the FHIR POST", stale="before or after the FHIR POST"),
        ),
        edits(8, ("p-server", "bridge/mllp/server.py"), ("p-framing", "bridge/mllp/framing.py")),
        said(
            10,
            "keep the outbox in SQLite for now, simplest thing",
            decision("d-sqlite", "SQLite", stale="SQLite"),
        ),
        agent(
            12,
            "Heads-up from the sample feed: microbiology results repeat OBX-5 using the `~` "
            "repetition separator, and line breaks inside a result are sent as `\\.br\\` escapes.",
            finding("f-repeat", "repetition separator"),
            prompt="anything odd in the samples?",
        ),
        said(
            14,
            "talked to Ingrid in lab IT. they want a commit accept (CA) as soon as we've persisted "
            "the message to the outbox, and the application-level ACK only once the EHR answered 201",
            answer("a-ack", "commit accept", closes="q-ack"),
        ),
        remember(
            17,
            "r-mrn",
            "Test patients use MRNs 9900000–9900999 only; anything outside that range must never "
            "appear in the test feed.",
        ),
        agent(
            20,
            "I need a decision on LOINC: the lab's local code table and the EHR's mapping disagree on "
            "about 300 codes. Which one is authoritative?",
            question("q-loinc", "disagree on about 300 codes", stale="disagree on about 300 codes"),
            prompt="mapping status?",
        ),
        said(
            24,
            "the EHR's mapping is the source of truth. the local table hasn't been maintained since "
            "Dr. Øverby retired",
            answer("a-loinc", "source of truth", closes="q-loinc"),
        ),
        agent(
            27,
            "Units: the analyzers report glucose and 13 other analytes in mg/dL while the EHR expects "
            "mmol/L, so we need a UCUM conversion for those 14 analytes before posting.",
            finding("f-units", "14 analytes"),
            prompt="are the units consistent?",
        ),
        said(
            31,
            "ops just told me the integration VMs get rebuilt every night, no local state allowed on "
            "them. put the outbox in their Postgres instead, table hl7_outbox",
            decision("d-postgres", "hl7_outbox", closes="d-sqlite"),
        ),
        said(
            35,
            "also, the EHR sandbox throttles us at 20 requests per second and revokes the client cert "
            "if we go over, so stay under that",
            constraint("c-rate", "20 requests per second"),
        ),
        edits(
            38,
            ("p-codes", "bridge/terminology/lokale_koder_ålesund.csv"),
            ("p-units", "bridge/terminology/ucum.py"),
        ),
        said(
            42,
            "retry policy: exponential backoff, give up after 6 attempts, then dead-letter it and page "
            "whoever is on call",
            decision("d-retry", "6 attempts"),
        ),
        said(
            48,
            "OBX-11 P becomes preliminary and F becomes final, fine, but what happens with a C?",
            question("q-status", "what happens with a C", stale="what happens with a C"),
        ),
        agent(
            51,
            "The HL7 v2-to-FHIR mapping IG maps OBX-11 `C` to `corrected`, and the correction has to "
            "be sent as an update of the Observation we already posted, not as a new resource.",
            answer("a-status", "corrected", closes="q-status"),
            prompt="look it up in the IG",
        ),
        agent(
            55,
            "For validation I'll use the `fhir.resources` R4B models in-process, since a HAPI "
            "validator server would be one more service to run inside the network.",
            decision("d-fhirres", "fhir.resources"),
            prompt="how do we validate before posting?",
        ),
        said(
            58,
            "also still unclear whether the EHR wants the specimen as a separate Specimen resource or "
            "contained in the Observation. I'll ask them",
            question("q-specimen", "separate Specimen resource"),
        ),
        said(
            60,
            "once the ACK flow is solid, the radiology ORU feed from the Agfa system is next",
            next_step("n-radiology", "radiology ORU feed"),
        ),
        last(
            66,
            "i-last",
            "Replay yesterday's anonymised sample (the 2,400-message file) through the listener "
            "against the EHR sandbox, stay under the rate limit, and summarise the ACK codes by count.",
        ),
    ),
    decoy_prompts=4,
    decoy=(
        said(
            1,
            "the ADT feed parser is built on python-hl7, keep it that way",
            decision("x-pyhl7", "python-hl7"),
        ),
        said(
            3,
            "please don't touch the A08 handler, the PAS team owns it",
            constraint("x-a08", "A08 handler"),
        ),
    ),
)

# ---------------------------------------------------------------------------------------------
# CI/CD migration: Jenkins to GitHub Actions for a monorepo (165 prompts)
# ---------------------------------------------------------------------------------------------

ACTIONS_MIGRATION = Scenario(
    name="actions-migration",
    domain="cicd",
    prompts=165,
    summary="Moving a Gradle/pnpm monorepo's CI from a Jenkins box to GitHub Actions.",
    plants=(
        said(
            1,
            "Context for this one: we're moving the monorepo's CI off jenkins-02 onto GitHub "
            "Actions, service by service. The Jenkinsfile is around 900 lines of scripted Groovy. "
            "One hard requirement from the start: releases are signed with the key in the HSM, "
            "so release jobs may only ever run on our self-hosted runners in the DC, never on "
            "GitHub-hosted machines. Start by making an inventory of the stages.",
            constraint("c-hsm", "self-hosted runners"),
        ),
        agent(
            4,
            "Inventory done: the Jenkinsfile has 23 stages, and 9 of them are copy-pasted per "
            "service, differing only in the Gradle project path and the Slack channel.",
            finding("f-stages", "23 stages"),
            prompt="what does it look like?",
        ),
        said(
            7,
            "per-service part becomes a reusable workflow (workflow_call), not a composite action",
            decision("d-reusable", "workflow_call"),
        ),
        said(
            10,
            "can the called workflow take its runner labels from the caller, or are they fixed in "
            "the callee?",
            question("q-labels", "fixed in the callee", stale="fixed in the callee"),
        ),
        agent(
            13,
            "It can: the callee's `runs-on` may read `inputs.runner`, so each caller passes its own "
            "label list. I've added a `runner` input with the DC labels as the default.",
            answer("a-labels", "inputs.runner", closes="q-labels"),
            prompt="check the docs for that",
        ),
        edits(
            15,
            ("p-serviceci", ".github/workflows/service-ci.yml"),
            ("p-orders", ".github/workflows/orders.yml"),
        ),
        remember(
            18,
            "r-secrets",
            "Jenkins credential IDs map to GitHub secrets via docs/ci/secret-map.md; never paste "
            "secret values into chat.",
        ),
        said(
            22,
            "cache gradle with actions/cache keyed on the lockfiles",
            decision("d-actcache", "actions/cache", stale="actions/cache"),
        ),
        said(
            26,
            "Before you go further with the frontend part, I had a call with security this morning. "
            "Most of it was about the SBOM work, which isn't ours. But for us: third-party actions "
            "have to be pinned to a full commit SHA, never a tag or branch, they got burned by the "
            "tj-actions incident. And they'd like a CODEOWNERS entry for .github/ at some point. "
            "Anyway, the frontend builds with pnpm 8 and Node 20, can you look at how Jenkins runs it?",
            constraint("c-sha", "full commit SHA"),
            next_step("n-codeowners", "CODEOWNERS"),
        ),
        agent(
            30,
            "The frontend e2e tests depend on a Chrome that Jenkins installs globally on the box. "
            "GitHub's images ship their own Chrome, but on our self-hosted DC image there's none, so "
            "we'll use the Playwright container image for that job.",
            finding("f-chrome", "Playwright container image"),
            prompt="how does the frontend job look?",
        ),
        agent(
            33,
            "Question for you: during the migration, should the Jenkins jobs keep running alongside "
            "Actions, or do we switch each service over in one go?",
            question("q-parallel", "in one go", stale="in one go"),
            prompt="orders builds green on Actions now",
        ),
        edits(37, ("p-verify", "ci/scripts/vérifier_signature.sh")),
        said(
            40,
            "run both side by side and compare; we cut a service over once it has 10 green builds in "
            "a row on both",
            answer("a-parallel", "10 green builds in a row", closes="q-parallel"),
        ),
        agent(
            44,
            "For AWS I'll switch to OIDC federation via `aws-actions/configure-aws-credentials` with "
            "`role-to-assume`, so the long-lived access keys Jenkins keeps can be deleted.",
            decision("d-oidc", "OIDC"),
            prompt="what about the deploy credentials?",
        ),
        agent(
            47,
            "The hand-rolled cache key ignored `buildSrc/`, which is why stale plugins kept getting "
            "restored. I replaced it with `gradle/actions/setup-gradle`, which computes the keys and "
            "cleans the cache itself.",
            decision("d-setupgradle", "setup-gradle", closes="d-actcache"),
            prompt="builds keep picking up an old version of our gradle plugin, why?",
        ),
        remember(
            52,
            "r-order",
            "Service migration order: auth, orders, catalog, payments; payments goes last because "
            "of PCI scope.",
        ),
        said(
            58,
            "how many Actions minutes a month do we actually have on our plan?",
            question("q-minutes", "Actions minutes a month", stale="Actions minutes a month"),
        ),
        agent(
            63,
            "The Jenkins `integration` stage wraps the test task in `retry(3)`, so flaky tests are "
            "silently re-run there. Nothing does that on Actions, so those failures will look new.",
            finding("f-retry", "retry(3)"),
            prompt="why is integration red on actions but green on jenkins?",
        ),
        said(
            66,
            "don't port that. flaky tests get quarantined with a tag and a ticket, we stop hiding them",
            decision("d-quarantine", "quarantined"),
        ),
        said(
            71,
            "finance answered: 50,000 a month on the Team plan, and the self-hosted ones don't count",
            answer("a-minutes", "50,000", closes="q-minutes"),
        ),
        edits(
            75,
            ("p-release", ".github/workflows/release.yml"),
            ("p-frontend", ".github/workflows/frontend-ci.yml"),
        ),
        said(
            80,
            "release trigger: pushing a tag that matches v*",
            decision("d-tagpush", "pushing a tag", stale="pushing a tag"),
        ),
        agent(
            85,
            "Something I couldn't find in the repo: after the cutover, does jenkins-02 get shut down, "
            "or does the nightly DB backup job stay on it?",
            question("q-backup", "nightly DB backup", stale="nightly DB backup"),
            prompt="what else do we need to know before decommissioning?",
        ),
        said(
            96,
            "change of plan on releases, product wants a human gate. make it workflow_dispatch with "
            "the release-approvers environment, and the workflow creates the tag itself",
            decision("d-dispatch", "workflow_dispatch", "release-approvers", closes="d-tagpush"),
        ),
        said(
            100,
            "keep each workflow file below 300 lines, past that nobody reviews them properly",
            constraint("c-300", "300 lines"),
        ),
        agent(
            105,
            "Docker builds on the DC runners are about 4× slower than on Jenkins: the runners are "
            "ephemeral, so BuildKit's layer cache is gone after each job.",
            finding("f-buildkit", "BuildKit"),
            prompt="why are the image builds so slow?",
        ),
        agent(
            107,
            "I'll export the build cache to our Harbor registry with `cache-to: type=registry` so the "
            "layers survive between jobs.",
            decision("d-registry", "type=registry"),
            prompt="fix it",
        ),
        agent(
            110,
            "Answered my own earlier question from the infra repo: `db-backup` moved to a Kubernetes "
            "CronJob in May (infra PR #412). Nothing but CI still runs on jenkins-02.",
            answer("a-backup", "Kubernetes CronJob", closes="q-backup"),
            prompt="go on",
        ),
        said(
            115,
            "payments must keep the two-person approval it has in Jenkins, do it with required "
            "reviewers on its environment",
            constraint("c-twoperson", "two-person approval"),
        ),
        edits(
            120,
            ("p-payments", ".github/workflows/payments.yml"),
            ("p-notes", "docs/ci/migración-notas.md"),
        ),
        agent(
            125,
            "Open question I can't answer from the repo: who owns the macOS signing certificate for "
            "the desktop client build? It isn't in the secret map.",
            question("q-macos", "macOS signing certificate"),
            prompt="what's blocking the desktop build?",
        ),
        remember(
            130,
            "r-opt",
            "Runners are ephemeral: never write to /opt/cache on the host, it is wiped after every job.",
        ),
        said(
            138,
            "does the default artifact retention clash with the audit's 1-year requirement?",
            question("q-retention", "1-year requirement", stale="1-year requirement"),
        ),
        agent(
            142,
            "Artifact retention on our plan tops out at 90 days, so release artifacts get published "
            "to Nexus, which keeps them for 7 years; ordinary workflow artifacts can stay on the "
            "default.",
            answer("a-retention", "Nexus", closes="q-retention"),
            prompt="and?",
        ),
        agent(
            150,
            "Next: the decommission plan for jenkins-02. Disable its cron triggers first, then keep "
            "the box read-only for 30 days before wiping it.",
            next_step("n-decom", "read-only for 30 days"),
            prompt="what's after catalog?",
        ),
        said(
            156,
            "let's use merge queues on main rather than forcing branches to be up to date",
            decision("d-mergeq", "merge queues"),
        ),
        last(
            165,
            "i-last",
            "Migrate the catalog service next, same pattern as orders, open it as a draft PR, and "
            "don't switch on the queue for it until Kasia has reviewed.",
        ),
    ),
    decoy_prompts=6,
    decoy=(
        said(1, "the docs site deploys through Netlify", decision("x-netlify", "Netlify")),
        said(3, "keep the docs build on Node 18 for now", constraint("x-node18", "Node 18")),
        remember(6, "x-previews", "Docs preview deployments expire after 14 days."),
    ),
)

HELDOUT: tuple[Scenario, ...] = (
    SKIFF_NETCODE,
    KESTREL_MATCH,
    SHOP_RELEVANCE,
    LAB_BRIDGE,
    ACTIONS_MIGRATION,
)
