# ruff: noqa: RUF001 - the scenarios use non-ASCII text on purpose (paths, names, dashes)
"""Second held-out set for the recovery-quality suite: five sessions written after the extractor was
tuned on the misses of both the main set and the first held-out set (``bench/recovery_heldout.py``).

Domains of their own (a browser extension, a scientific simulation, a school's Django admin, bike
routing, a video transcoding service), 29 to 158 prompts, phrased the way people and agents talk in
long sessions: terse answers, typos, facts in passing, one-word decisions, late answers. They are
scored apart (``recovery_*_heldout2`` in ``bench/bench_recovery.py``). Their misses are for the
figures only: do not tune the extractor on them (once it has been, write a new set instead).

Same builders, filler, decoy session and validation as the other sets
(``build_all(scenarios=HELDOUT2)``).
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
# Browser extension: a tab manager's snooze and grouping after the MV3 port (29 prompts)
# ---------------------------------------------------------------------------------------------

TABTIDY = Scenario(
    name="tabtidy-ext",
    domain="webext",
    prompts=29,
    summary="A Chrome/Firefox tab-manager extension: snoozing and auto-grouping after the MV3 port.",
    plants=(
        said(
            1,
            "hey. tabtidy is our little tab manager extension (snooze tabs, auto-group by domain). it has to "
            "stay MV3 and there can be no remote code at all, the store reviewers flagged us last time for "
            "loading a config from our CDN. first job: get snoozing working again, its been broken since the "
            "MV3 port",
            constraint("c-remote", "no remote code"),
        ),
        said(
            3,
            "also the popup needs to open in under 100ms — the old one took like half a second with 200 "
            "tabs open and people hated it. oh and it must run on firefox 115 ESR, thats what the corp "
            "laptops have",
            constraint("c-popup", "under 100ms"),
            constraint("c-esr", "firefox 115 ESR"),
        ),
        agent(
            4,
            "Found the snooze bug. The MV3 service worker gets torn down after ~30 s idle and the snooze was "
            "a plain setTimeout inside the worker, so anything longer than that never fired. It has to be "
            "scheduled with chrome.alarms and the state re-read when the worker wakes up.",
            finding("f-sw", "chrome.alarms"),
        ),
        agent(
            5,
            "Where should snoozed tabs live? A: chrome.storage.local (simple, 10 MB unless we ask for "
            "unlimitedStorage). B: IndexedDB through idb-keyval (more room, more code). I'd lean A.",
        ),
        said(
            6,
            "A",
            decision("d-storage", "snoozed:v1"),
            reply="A it is — snoozed tabs go into chrome.storage.local under a single `snoozed:v1` key "
            "(array of {url, title, wakeAt}); I'm adding the unlimitedStorage permission too.",
        ),
        edits(
            7,
            ("f-snooze", "src/background/snooze.ts"),
            ("f-store", "src/lib/storage.ts"),
            reply="Snooze goes through alarms now, storage helper added.",
        ),
        agent(
            8,
            "Build passes and a snooze fires after a worker restart. One thing I need from you: should "
            "snoozed tabs survive a full browser restart? If yes I also have to handle runtime.onStartup "
            "and re-create the alarms there.",
            question("q-restart", "survive a full browser restart", stale="survive a full browser restart"),
        ),
        said(
            10,
            "lets bundle with esbuild, not webpack. one small build.mjs, I dont want 400 lines of config "
            "again",
            decision("d-esbuild", "esbuild", stale="esbuild"),
        ),
        said(
            11,
            "q: does chrome.tabGroups even exist on firefox?? if not the auto-group thing is chrome only and "
            "we have to say so in the listing",
            question("q-groups", "tabGroups even exist on firefox", stale="tabGroups even exist"),
        ),
        agent(
            12,
            "Turns out the popup slowness was the favicons: it did a fetch() of every tab's favicon URL "
            "before rendering. Switched to the `_favicon/` endpoint (needs the favicon permission) — no "
            "network at all, 180 ms → 40 ms with 200 tabs.",
            finding("f-favicon", "_favicon/"),
            prompt="why is the popup still slow on my machine",
        ),
        edits(13, ("f-popup", "src/popup/Popup.svelte"), ("f-fav", "src/popup/favicon.ts")),
        remember(
            15,
            "r-owner",
            "The store listing belongs to the ops@tabtidy.dev Google group, not Pia's personal account — "
            "publish from that.",
        ),
        said(
            18,
            "ok the build script is getting ugly with two manifests. scrap the hand-rolled build and move to "
            "WXT, it spits out the chrome and firefox manifests from one config",
            decision("d-wxt", "move to WXT", closes="d-esbuild"),
        ),
        edits(
            19,
            ("f-wxt", "wxt.config.ts"),
            ("f-privacy", "store/Datenschutzerklärung.md"),
            reply="Entrypoints migrated. Also added the German privacy text the listing asked for.",
        ),
        agent(
            21,
            "Re Firefox tab groups: checked MDN and the Firefox source — there's no tabGroups API there at "
            "all, only a meta bug. So auto-grouping has to be Chrome-only behind `if (chrome.tabGroups)`.",
            answer("a-groups", "no tabGroups API", closes="q-groups"),
        ),
        said(
            22,
            "restart: yes ofc, they need to come back after a reboot, thats the whole point of snoozing",
            answer("a-restart", "come back after a reboot", closes="q-restart"),
        ),
        digest(
            24,
            {
                "summary": "Snoozing works again under MV3, popup renders without network, build moved, "
                "German privacy text added.",
                "decisions": [
                    {
                        "decision": "Auto-grouping is Chrome-only and hidden on Firefox",
                        "rationale": "Firefox has no tab groups API",
                    }
                ],
                "next_steps": [
                    "One-time migration of pre-MV3 snoozes out of localStorage on install/update",
                    "Re-create pending alarms in runtime.onStartup",
                ],
            },
            decision("d-hidden", "hidden on Firefox", stale="hidden on Firefox"),
            next_step("n-migrate", "migration of pre-MV3 snoozes"),
        ),
        said(
            26,
            "actually about the grouping toggle on FF — dont hide it, show it greyed out with a tooltip. "
            "people will think its a bug otherwise",
            decision("d-toggle", "greyed out with a tooltip", closes="d-hidden"),
        ),
        edits(27, ("f-toggle", "src/options/GroupingToggle.svelte")),
        last(
            29,
            "i-last",
            "ok bump the version to 0.4.0, build the chrome + firefox zips and stop there — I'll upload to "
            "both stores myself tmrw",
        ),
    ),
    decoy_prompts=3,
    decoy=(
        said(
            1,
            "quick one before the weekend: the jQuery options page from v1 is dead, dont port anything from "
            "it",
            constraint("x-jquery", "jQuery options page"),
        ),
        remember(
            2, "x-beta", "Beta builds go out through the unlisted AMO channel, never the public listing."
        ),
        agent(
            3,
            "The Sentry DSN in the old manifest points at a project that was deleted in March, so I left it "
            "out.",
            finding("x-sentry", "Sentry DSN"),
        ),
    ),
)

# ---------------------------------------------------------------------------------------------
# Science: coral larvae dispersal by particle tracking through an ocean model (36 prompts)
# ---------------------------------------------------------------------------------------------

REEF_DRIFT = Scenario(
    name="reef-drift",
    domain="science",
    prompts=36,
    summary="Lagrangian tracking of coral larvae through hydrodynamic model output for reef connectivity.",
    plants=(
        said(
            1,
            "context: reefdrift tracks coral larvae through the hydrodynamic model output (eReefs 1km) to "
            "get reef-to-reef connectivity. everything has to be bit-reproducible, the reviewers of the "
            "last paper reran our code and got different numbers, never again. so seeded RNG per particle "
            "and no fastmath in the numba kernels",
            constraint("c-repro", "bit-reproducible"),
            constraint("c-fastmath", "no fastmath"),
        ),
        said(
            3,
            "advection: RK4, euler was way too diffusive in the pilot runs",
            decision("d-rk4", "RK4", stale="RK4"),
        ),
        edits(5, ("f-advect", "reefdrift/kernels/advect.py"), ("f-rng", "reefdrift/rng.py")),
        agent(
            6,
            "Got it — the 40 GB RSS is xarray: `.load()` gets called on the velocity DataArray inside the "
            "time loop, so every step re-reads the whole NetCDF into memory. Moved it to a sliding "
            "3-timestep window; peak is 3.1 GB now.",
            finding("f-mem", "re-reads the whole NetCDF"),
            prompt="the run on gadi got OOM killed again at 40gb, whats eating the memory",
        ),
        said(
            8,
            "open q for Dr Okonkwo: do larvae settle only on reef cells or anywhere shallower than 30 m? "
            "I'll email her, for now code both behind a flag",
            question("q-settle", "shallower than 30 m", stale="shallower than 30 m"),
        ),
        agent(
            10,
            "How do you want trajectories stored? zarr (one store, chunked, appendable while the run goes) "
            "or one parquet file per release day? zarr is nicer for the big ensemble runs later.",
        ),
        said(
            11,
            "zarr",
            decision("d-zarr", "chunked 10k particles"),
            reply="zarr then. One store per run, chunked 10k particles × 24 outputs, written append-only "
            "from the main loop.",
        ),
        edits(12, ("f-settle", "reefdrift/settlement.py"), ("f-io", "reefdrift/io/zarr_writer.py")),
        remember(
            14,
            "r-mort",
            "Mortality λ = 0.1 d⁻¹ is from Connolly & Baird (2010) — cite it in the methods section.",
        ),
        said(
            15,
            "HPC budget reminder: 2000 core-hours this month on gadi, dont waste them on parameter sweeps "
            "pls",
            constraint("c-hours", "2000 core-hours", stale="2000 core-hours"),
        ),
        agent(
            17,
            "Sanity check: with diffusion switched off, a forward then backward run puts 99.7% of particles "
            "back within one grid cell of where they started. The rest are beached on the Whitsunday "
            "coastline cells.",
            finding("f-revers", "99.7%"),
        ),
        edits(
            18,
            ("f-sens", "notebooks/Sensitivitätsanalyse.ipynb"),
            ("f-cfg", "configs/gbr_2019_spawning.yaml"),
        ),
        said(
            20,
            "make the settlement competency window a config field, Acropora is roughly 4 to 30 days but the "
            "brooders are different",
            decision("d-compet", "competency window"),
        ),
        agent(
            22,
            "Fixed-step integration overshoots in the narrow tidal passages — particles jump straight over "
            "the reef edge at dt=20 min. I replaced it with an adaptive Dormand-Prince stepper, rtol 1e-5, "
            "dt capped at 20 min; runtime is up ~35%.",
            decision("d-dopri", "Dormand-Prince", closes="d-rk4"),
            prompt="the particles jumping over reefs thing — fix it however you think is best",
        ),
        said(
            24,
            "good news, the allocation got bumped to 5000 core-hours, the other group didnt use theirs",
            constraint("c-hours2", "5000 core-hours", closes="c-hours"),
        ),
        edits(25, ("f-dopri", "reefdrift/kernels/dopri.py")),
        said(
            27,
            "Okonkwo got back: settlement only counts inside the reef polygons from the GBRMPA zoning layer, "
            "depth doesnt matter at all",
            answer("a-settle", "inside the reef polygons", closes="q-settle"),
        ),
        agent(
            28,
            "Before the ensemble: should each member perturb the spawning night (±1 day), or only the "
            "release positions?",
            question("q-perturb", "perturb the spawning night", stale="spawning night"),
        ),
        digest(
            30,
            {
                "summary": "Kernels deterministic, memory fixed with a sliding window, adaptive stepper in "
                "place, settlement per reef polygon.",
                "decisions": [
                    {
                        "decision": "Connectivity matrices are normalised by larvae released per source reef",
                        "rationale": "comparable across reefs of different size",
                    }
                ],
                "next_steps": ["Run the 1,000-member ensemble for the 2019 spawning on gadi"],
            },
            decision("d-norm", "normalised by larvae released"),
            next_step("n-ens", "1,000-member ensemble"),
        ),
        said(
            32,
            "both. jitter the night by a day and the positions by 500m",
            answer("a-perturb", "positions by 500m", closes="q-perturb"),
        ),
        said(
            33,
            "after the ensemble: connectivity matrix plot with reefs sorted by latitude, north at the top, "
            "log colour scale",
            next_step("n-plot", "sorted by latitude"),
        ),
        last(
            36,
            "i-last",
            "submit the ensemble as an array job (--array=0-99, 10 members each) and write me a 3-line "
            "status note. dont start on the plots yet",
        ),
    ),
    decoy_prompts=4,
    decoy=(
        said(
            1,
            "btw the cluster login node only has python 3.10 — no match statements or 3.11 stuff in anything "
            "that runs there",
            constraint("x-py310", "python 3.10"),
        ),
        agent(
            2,
            "The old MATLAB tracker (legacy_tracker.m) used a fixed 15-minute step and bilinear "
            "interpolation; I only read it for reference.",
            finding("x-matlab", "legacy_tracker.m"),
        ),
        remember(4, "x-grant", "Acknowledge grant ARC DP210101234 in every figure caption draft."),
    ),
)

# ---------------------------------------------------------------------------------------------
# School admin: a collège's back office on Django admin (64 prompts)
# ---------------------------------------------------------------------------------------------

HALLPASS = Scenario(
    name="hallpass-admin",
    domain="edtech",
    prompts=64,
    summary="A French collège's back office on Django admin: classes, grades, report cards, timetables.",
    plants=(
        said(
            1,
            "We're building the back office for Collège Jean-Moulin on top of Django admin — students, "
            "classes, grades, report cards (bulletins). Rule #1: a teacher must never see another class's "
            "grades, the DPO was very clear about that.",
            constraint("c-grades", "another class's grades"),
        ),
        said(
            3,
            "hosting is the managed box from the académie so we're on Django 4.2 LTS, no 5.x features "
            "please. start with the Student + Classe models",
            constraint("c-django", "Django 4.2 LTS", stale="Django 4.2 LTS"),
        ),
        edits(4, ("f-models", "school/models.py"), ("f-admin", "school/admin.py")),
        said(
            6,
            "grades: Decimal(4,1) on the /20 scale, a coefficient per subject. no floats anywhere near "
            "grades",
            decision("d-decimal", "Decimal(4,1)", stale="Decimal(4,1)"),
        ),
        agent(
            8,
            "For parents/guardians: a separate Guardian model linked through a table, or reuse User with a "
            "'guardian' role and an M2M to Student? Separate is cleaner for kids with 3+ guardians and for "
            "pickup permissions.",
        ),
        said(
            9,
            "separate",
            decision("d-guardian", "StudentGuardian"),
            reply="Separate it is: a `Guardian` model plus a `StudentGuardian` through table carrying "
            "`relationship` and `can_pickup`.",
        ),
        edits(11, ("f-perm", "school/permissions.py"), ("f-tests", "school/tests/test_grade_visibility.py")),
        agent(
            13,
            "The Student changelist was doing one query per row for the homeroom teacher — 412 queries on "
            "the 5e list. list_select_related on classe__homeroom brings it down to 4.",
            finding("f-queries", "412 queries"),
            prompt="the student list takes forever to load, can u check",
        ),
        said(
            16,
            "q I dont know the answer to: do we have to keep grades of students who left the school? and for "
            "how long? I'll ask Mme Bernard",
            question("q-retention", "students who left", stale="students who left"),
        ),
        said(
            18,
            "timetable import: lets just parse the CSV that Pronote exports every night, its already on the "
            "SFTP",
            decision("d-csv", "CSV that Pronote exports", stale="CSV that Pronote exports"),
        ),
        edits(19, ("f-import", "school/management/commands/import_timetable.py")),
        remember(21, "r-terms", "Trimestres: T1 ends 2024-11-29, T2 ends 2025-03-07, T3 ends 2025-06-27."),
        agent(
            23,
            "Looks like the bulletin PDF is slow because WeasyPrint fetches the school logo over HTTP for "
            "every page — 38 s for a class of 28. Inlined it as a data: URI, it's 4 s now.",
            finding("f-weasy", "WeasyPrint fetches the school logo"),
        ),
        edits(
            24,
            ("f-tpl", "templates/admin/school/relevé_de_notes.html"),
            ("f-css", "static/school/bulletin.css"),
        ),
        agent(
            27,
            "Quick one: after the conseil de classe, can teachers still edit the grades of that trimestre, "
            "or is it locked?",
            question("q-lock", "after the conseil de classe", stale="conseil de classe"),
        ),
        said(
            28,
            "locked",
            answer("a-lock", "locked_at", closes="q-lock"),
            reply="OK: once a trimestre has `locked_at` set, its grade rows are read-only in the admin for "
            "teachers; only the Direction group can unlock.",
        ),
        agent(
            31,
            "Problem with the timetable import: Pronote's nightly CSV drops the room column whenever two "
            "classes are merged for a lesson (the LV2 groups), so ~30% of rows come without a room. Their "
            "XML export (EDT format) has it, so I switched the command to read the XML; the CSV path is "
            "gone.",
            decision("d-xml", "XML export", closes="d-csv"),
        ),
        said(
            33,
            "the accessibility audit is in june so everything teachers click has to be RGAA AA — labels on "
            "every input, no colour-only states. also can you make the grade input accept commas, half the "
            "teachers type 12,5 and get an error",
            constraint("c-rgaa", "RGAA AA"),
            decision("d-comma", "accept commas"),
        ),
        edits(35, ("f-widget", "school/widgets.py"), ("f-po", "locale/fr/LC_MESSAGES/django.po")),
        said(
            38,
            "upgrade news: the académie moved us to a new VM over the weekend, we can use Django 5.1 now",
            constraint("c-django51", "Django 5.1", closes="c-django"),
        ),
        agent(
            40,
            "Upgrade went through. The only break was an `admin.display(boolean=True)` ordering on a "
            "property — fixed. All 143 tests pass.",
        ),
        said(
            42,
            "grade changes need an audit trail btw, who changed what and when. parents contest grades all "
            "the time",
        ),
        digest(
            44,
            {
                "summary": "Models, admin and per-class permissions done; bulletin PDF; timetable import; "
                "framework upgrade done.",
                "decisions": [
                    {
                        "decision": "Audit grade changes with django-simple-history on Note",
                        "rationale": "who/when/what for contested grades; works with the admin out of the "
                        "box",
                    }
                ],
                "next_steps": ["Grade export for the rectorat (SIECLE format)", "Absence tracking"],
                "questions": ["Retention period for pupils who have left"],
            },
            decision("d-history", "django-simple-history"),
            next_step("n-rectorat", "export for the rectorat"),
        ),
        edits(
            46,
            ("f-histmig", "school/migrations/0014_historicalnote.py"),
            ("f-audit", "school/admin_history.py"),
        ),
        agent(
            48,
            "Should the history view be visible to the homeroom teacher too, or just to the Direction group?",
            question("q-hist", "visible to the homeroom", stale="visible to the homeroom"),
        ),
        said(
            52,
            "Mme Bernard answered about the leavers: keep grades 10 years after they leave, then anonymise "
            "(not delete, the stats need them)",
            answer("a-retention", "10 years after they leave", "anonymise", closes="q-retention"),
        ),
        edits(54, ("f-retention", "school/management/commands/retention.py")),
        said(
            56,
            "next after that: absence SMS to parents through the académie's SMS gateway, not twilio",
            next_step("n-sms", "absence SMS"),
        ),
        said(
            58,
            "re history: direction only. teachers see their own changes in the normal form anyway",
            answer("a-hist", "direction only", closes="q-hist"),
        ),
        said(
            60,
            "change: the /20 scale stays but store grades as Decimal(5,2) — the maths teachers give quarter "
            "points (12.25)",
            decision("d-decimal52", "Decimal(5,2)", closes="d-decimal"),
        ),
        edits(61, ("f-mig15", "school/migrations/0015_note_decimal_5_2.py")),
        last(
            64,
            "i-last",
            "run the migrations against the staging copy, load the 2024-25 fixture and send me the admin URL "
            "so I can click through as a teacher. no deploy today",
        ),
    ),
    decoy_prompts=4,
    decoy=(
        said(
            1,
            "heads up: the parent portal is a separate repo (hallpass-portal), ignore anything about it here",
            constraint("x-portal", "hallpass-portal"),
        ),
        remember(
            2,
            "x-print",
            "The staff room printer is on VLAN 40; jobs from the admin go through CUPS on print01.",
        ),
        agent(
            3,
            "The previous intern's Flask prototype stored passwords with md5 — I'm not reusing anything "
            "from it.",
            finding("x-md5", "with md5"),
        ),
    ),
)

# ---------------------------------------------------------------------------------------------
# Geospatial: bike and cargo-bike routing for a city app (78 prompts)
# ---------------------------------------------------------------------------------------------

VELO_ROUTING = Scenario(
    name="velo-routing",
    domain="geo",
    prompts=78,
    summary="A bike and cargo-bike routing API for a city app on OSM data with elevation.",
    plants=(
        said(
            1,
            "velo-routing: bike + cargo bike routing API for the city app. ground rules: coordinates in and "
            "out are lon/lat in GeoJSON order — the app team got burned by lat/lon swaps before, so no "
            "exceptions, not even in debug endpoints",
            constraint("c-order", "GeoJSON order"),
        ),
        said(
            3,
            "perf target is p95 under 300 ms for routes inside the city, thats what product signed off",
            constraint("c-p95", "p95 under 300 ms"),
        ),
        said(
            5,
            "for the engine lets go with pgRouting on the PostGIS we already run for the map tiles, one less "
            "thing to operate",
            decision("d-pgr", "pgRouting", stale="pgRouting"),
        ),
        edits(7, ("f-import", "routing/import_osm.py"), ("f-schema", "routing/sql/edges.sql")),
        agent(
            9,
            "Interesting: the Geofabrik extract tags 1,214 ways as bicycle=no that the city's own Velonetz "
            "dataset lists as signed bike paths — mostly along the Limmat. Those need an override layer or "
            "we'll send people onto the main roads.",
            finding("f-ways", "1,214 ways"),
        ),
        agent(
            11,
            "Elevation data: SRTM 30 m (free, coarse, bad on bridges) or the city's LiDAR DEM at 1 m "
            "(accurate, but 14 GB)? It matters for the hill penalty.",
        ),
        said(
            12,
            "lidar",
            decision("d-dem", "resample to 5 m"),
            reply="LiDAR it is. I'll resample to 5 m and tile it as cloud-optimized GeoTIFFs so the importer "
            "can sample it per edge.",
        ),
        edits(
            14, ("f-elev", "routing/elevation.py"), ("f-override", "data/overrides/Hardbrücke_Velo.geojson")
        ),
        said(
            16,
            "legal question I cant answer: are we allowed to redistribute the Velonetz geometry in our API "
            "responses? the licence on the portal is some custom text. asking city legal",
            question("q-licence", "redistribute the Velonetz geometry", stale="redistribute the Velonetz"),
        ),
        remember(
            18,
            "r-cargo",
            "Cargo bikes: max width 1.0 m; treat bollards with a gap under 1.1 m as impassable.",
        ),
        agent(
            20,
            "Found why routes crossed the lake: the Zürichsee ferry ways have bicycle=yes and no duration "
            "tag, so they cost zero. Gave ferries a 15 min fixed cost.",
            finding("f-ferry", "Zürichsee ferry"),
            prompt="why does it send me over the water lol",
        ),
        edits(22, ("f-cost", "routing/costing/cargo_bike.py"), ("f-ferries", "routing/costing/ferries.yaml")),
        said(
            25,
            "looks good. one thing from the police liaison meeting — we must not route bikes through the "
            "Bahnhofstrasse pedestrian zone between 10 and 20h, its not allowed then, rest of the day is "
            "fine. anyway can you now look at why the importer takes 40 min",
            constraint("c-zone", "pedestrian zone between 10 and 20h"),
        ),
        agent(
            27,
            "The 40 minutes go into ST_Intersects against the overrides without a usable index — the GiST "
            "index was on the wrong SRID column. Import takes 6 min now.",
            finding("f-gist", "wrong SRID column"),
        ),
        agent(
            29,
            "Benchmarked 10k random city routes on the pg setup: p50 410 ms, p95 1.8 s. pgr_bdAstar spends "
            "most of its time building the graph for each query; I don't see us getting near the target "
            "with this design.",
            finding("f-slow", "p95 1.8 s"),
        ),
        said(
            31,
            "ok pg is out then. lets move to Valhalla as a sidecar container, it does the time-dependent "
            "restrictions too",
            decision("d-valhalla", "Valhalla", closes="d-pgr"),
        ),
        edits(33, ("f-dock", "deploy/engine/Dockerfile"), ("f-engconf", "deploy/engine/config.json")),
        agent(
            35,
            "Unknown surface tags now cost like gravel — factor 1.4 over asphalt. Otherwise it happily sends "
            "cargo bikes down farm tracks tagged with nothing.",
            decision("d-gravel", "factor 1.4", stale="factor 1.4"),
        ),
        agent(
            37,
            "For the turn instructions: German and English only, or French and Italian too?",
            question("q-lang", "French and Italian too", stale="French and Italian too"),
        ),
        said(
            38,
            "all four",
            answer("a-lang", "all four languages", closes="q-lang"),
            reply="All four languages then — de, en, fr, it, from the engine's bundled narrative locales.",
        ),
        agent(
            40,
            "New bench on the sidecar: 10k routes, p50 38 ms, p95 212 ms on a c6g.large. Cold start while "
            "the tiles load is 9 s.",
            finding("f-fast", "p95 212 ms"),
        ),
        edits(42, ("f-bench", "bench/routes_zurich.py"), ("f-api", "routing/api/routes.py")),
        said(
            44,
            "no, dont punish gravel that much. the cargo bike people ride it fine and complained in the "
            "beta. make it 1.15",
            decision("d-gravel2", "1.15", closes="d-gravel"),
        ),
        remember(
            46,
            "r-tiles",
            "After every OSM import the routing tiles must be rebuilt, else routes use yesterday's geometry.",
        ),
        said(
            48,
            "snap input points to the nearest routable edge but only within 50 m, otherwise 422 with a clear "
            "message. people click in the lake all the time",
            decision("d-snap", "within 50 m"),
        ),
        agent(
            50,
            "Should the API return alternative routes (up to 3) in v1, or a single route?",
            question("q-alt", "alternative routes", stale="alternative routes"),
        ),
        edits(52, ("f-snapping", "routing/api/snapping.py"), ("f-errors", "routing/api/errors.py")),
        digest(
            55,
            {
                "summary": "Engine sidecar in place, cargo-bike costing, snapping, instructions in four "
                "languages, benchmark well inside the target.",
                "decisions": [
                    {
                        "decision": "Ship routing tiles in a read-only volume baked at import time, not "
                        "built on container start",
                        "rationale": "cold start 9 s -> under 1 s",
                    }
                ],
                "next_steps": ["isochrone endpoint for the 'what can I reach in 15 min' feature"],
            },
            decision("d-baked", "baked at import time"),
            next_step("n-iso", "isochrone endpoint"),
        ),
        said(
            58,
            "city legal finally answered on Velonetz: its CC BY 4.0 since January, we just need the "
            "attribution line 'Daten: Stadt Zürich'",
            answer("a-licence", "CC BY 4.0", closes="q-licence"),
        ),
        edits(60, ("f-attr", "routing/api/attribution.py"), ("f-sources", "docs/Datenquellen_Übersicht.md")),
        agent(
            63,
            "Heads-up: the Bahnhofstrasse restriction wasn't applied because the OSM way uses "
            "`bicycle:conditional=no @ (10:00-20:00)` and the parser only read `access:conditional`. Fixed, "
            "checked at 11:00 and at 21:00.",
            finding("f-cond", "bicycle:conditional"),
        ),
        said(
            66,
            "re alternatives: single best route only, alternates are a v2 thing",
            answer("a-alt", "alternates are a v2 thing", closes="q-alt"),
        ),
        said(
            68,
            "infra says the sidecar gets 2 vCPU / 4 GB max, the tiles have to fit in that",
            constraint("c-mem", "2 vCPU / 4 GB"),
        ),
        said(
            70,
            "after the isochrones: hook the nightly import into the Airflow DAG the GIS team runs",
            next_step("n-nightly", "nightly import into the Airflow DAG"),
        ),
        agent(
            72,
            "Memory check: the canton's tiles are 1.3 GB and the engine peaks at 2.6 GB RSS under the bench, "
            "so it fits the limit.",
            finding("f-rss", "2.6 GB RSS"),
        ),
        edits(74, ("f-helm", "deploy/helm/velo-routing/values.yaml")),
        last(
            78,
            "i-last",
            "rebuild the tiles from this mornings extract, rerun the 10k benchmark and paste me the p50/p95 "
            "table. dont touch the API code",
        ),
    ),
    decoy_prompts=5,
    decoy=(
        said(
            1,
            "public transport is out of scope — thats the OTP instance the transit team runs, dont integrate "
            "with it",
            constraint("x-otp", "OTP instance"),
        ),
        agent(
            3,
            "Found the old prototype: it pickled a NetworkX graph to routing_proto.pkl and ran Dijkstra per "
            "request. Nothing worth keeping.",
            finding("x-pkl", "routing_proto.pkl"),
        ),
        remember(4, "x-basemap", "Basemap attribution must read © OpenStreetMap contributors, © swisstopo."),
    ),
)

# ---------------------------------------------------------------------------------------------
# Media: a transcoding service for partner uploads (158 prompts)
# ---------------------------------------------------------------------------------------------

REELFORGE = Scenario(
    name="reelforge-transcode",
    domain="media",
    prompts=158,
    summary="A transcoding service for partner video uploads: ABR ladder, packaging, subtitles, cost.",
    plants=(
        said(
            1,
            "new project: reelforge, the transcoding service for partner uploads. masters come in as ProRes "
            "422 HQ, up to UHD. Hard rule: never overwrite, move or delete anything in the ingest bucket — "
            "its under legal hold for the partner contracts. we only ever read from it.",
            constraint("c-hold", "legal hold"),
        ),
        said(
            3,
            "also whatever ladder we build, the base rungs have to play on the 2017 Samsung Tizen TVs, so "
            "H.264 High, level 4.1 max for those. the 4K rungs can do whatever",
            constraint("c-level", "level 4.1"),
        ),
        agent(
            5,
            "Ran ffprobe over the 212 sample masters: 64 are 29.97 fps with drop-frame timecode, the other "
            "148 are 25p. No VFR, which is good news.",
            finding("f-dropframe", "drop-frame timecode"),
        ),
        agent(
            7,
            "Two ways to do the ladder: (1) a fixed ladder like Apple's authoring spec, same bitrates for "
            "every title, or (2) per-title: analyse each master first and pick bitrates per asset. (2) costs "
            "an extra analysis pass but saves ~20–30% bandwidth on talking-head content.",
        ),
        said(
            8,
            "2",
            decision("d-pertitle", "CRF probe at 6 rungs"),
            reply="Per-title then. Each master gets a fast CRF probe at 6 rungs and each rung's bitrate "
            "comes from where the VMAF curve flattens.",
        ),
        edits(10, ("f-ladder", "reelforge/ladder.py"), ("f-probe", "reelforge/probe.py")),
        said(
            12,
            "segment length 6s, keyframes every 2s, closed GOP, scenecut off so the renditions stay aligned",
            decision("d-seg6", "segment length 6s", stale="segment length 6s"),
        ),
        said(
            15,
            "open question — do we need to keep 5.1 audio for the apps or is stereo AAC enough? waiting on "
            "product (Mirela)",
            question("q-surround", "keep 5.1 audio", stale="keep 5.1 audio"),
        ),
        remember(18, "r-loud", "Loudness target: −23 LUFS integrated (EBU R128), true peak −1 dBTP."),
        agent(
            20,
            "Compared encoders on 20 masters: NVENC on the T4 nodes is about 6x faster than x264 `slow`, but "
            "VMAF drops ~3 points at the same bitrate, worst on grainy film.",
            finding("f-nvenc", "VMAF drops ~3 points"),
        ),
        said(
            21,
            "ok then x264 for the top 3 rungs, nvenc for everything below",
            decision("d-x264", "x264 for the top 3 rungs", stale="x264 for the top 3 rungs"),
        ),
        edits(
            24,
            ("f-worker", "reelforge/worker/transcode.py"),
            ("f-fixture", "tests/fixtures/Café_Müller_teaser.json"),
        ),
        said(
            27,
            "finance signed off on a budget of 0.9 cents per output minute for compute, pls keep an eye on "
            "that",
            constraint("c-budget", "0.9 cents per output minute", stale="0.9 cents per output minute"),
        ),
        agent(
            30,
            "Thumbnails for scrubbing: sprite sheets (JPEG grid + WebVTT index, what most players want) or "
            "single JPEGs every 10 s?",
        ),
        said(
            31,
            "sprites",
            decision("d-sprites", "10x10 JPEG grid"),
            reply="Sprites: one 10x10 JPEG grid per 100 thumbnails, 160 px wide, with a WebVTT index next to "
            "the manifest.",
        ),
        agent(
            34,
            "Root cause of the stuck jobs: when a master carries a data track ffmpeg doesn't know, it ends "
            "up waiting on stdin forever. With `-nostdin` and `-map -0:d` they finish.",
            finding("f-stdin", "-nostdin"),
            prompt="3 jobs have been 'running' since yesterday, cpu at 0. look pls",
        ),
        edits(36, ("f-ffargs", "reelforge/worker/ffmpeg_args.py"), ("f-thumbs", "reelforge/thumbs.py")),
        said(
            39,
            "queueing: use the RabbitMQ we already have, one queue per priority (express, normal, backfill)",
            decision("d-queue", "one queue per priority"),
        ),
        remember(
            42,
            "r-cdn",
            "Staging CDN property is reelforge-stg; prod CDN changes go through Jonas, never directly.",
        ),
        agent(
            45,
            "12 of the 40 partner SRTs are Windows-1252, not UTF-8 — that's where the broken French accents "
            "come from (é shows up as Ã©).",
            finding("f-cp1252", "Windows-1252"),
        ),
        agent(
            46,
            "I'd convert every subtitle to UTF-8 WebVTT at ingest and keep the partner's original file next "
            "to it, so nothing downstream has to guess encodings again.",
            decision("d-vtt", "UTF-8 WebVTT at ingest"),
            prompt="what do you suggest",
        ),
        edits(
            48,
            ("f-subs", "reelforge/subtitles/normalize.py"),
            ("f-srt", "tests/fixtures/sous-titres_été.srt"),
        ),
        said(
            51,
            "another open one: when a partner replaces a master, do we charge for the re-transcode or is it "
            "free? sales owns that, I asked in #sales-ops",
            question("q-retrans", "charge for the re-transcode", stale="charge for the re-transcode"),
        ),
        said(
            54,
            "dont run anything on the prod GPU pool before 22:00 — its shared with the live channel encoders "
            "during the day",
            constraint("c-night", "before 22:00"),
        ),
        agent(
            57,
            "HDR: 4 of the masters are HLG. Tone-mapping to SDR with zscale + tonemap=hable looks washed out "
            "on skin tones; mobius is a bit better but still off.",
            finding("f-hlg", "tonemap=hable"),
        ),
        said(
            58,
            "skip HDR for v1. SDR only, mark HLG/PQ masters with needs_review and move on",
            decision("d-sdr", "needs_review", stale="needs_review"),
        ),
        digest(
            60,
            {
                "summary": "Ingest read-only, per-title ladder, encoder split by rung, sprites, subtitle "
                "normalisation, RabbitMQ priorities.",
                "decisions": [
                    {
                        "decision": "Per-asset ladders cached in Postgres, keyed by master sha256, so "
                        "re-runs skip the analysis pass",
                        "rationale": "analysis is ~25% of the compute per asset",
                    }
                ],
                "next_steps": [
                    "DRM packaging: Widevine + FairPlay via the key server",
                    "Audio loudness normalisation pass",
                ],
                "questions": ["Do partners pay when they replace a master?"],
            },
            decision("d-cache", "keyed by master sha256"),
            next_step("n-drm", "Widevine + FairPlay"),
        ),
        edits(
            63, ("f-cache", "reelforge/ladder_cache.py"), ("f-migration", "migrations/0007_ladder_cache.sql")
        ),
        said(
            66,
            "change of plan on segments: the player team wants 4 second segments for faster startup. GOP "
            "stays 2s so it divides",
            decision("d-seg4", "4 second segments", closes="d-seg6"),
        ),
        agent(
            69,
            "The A/V drift on the 29.97 masters was our `-r 25` forcing a frame-rate conversion on the video "
            "only. With the fps filter on video and `aresample=async=1` on audio they stay within one frame "
            "over 90 minutes.",
            finding("f-drift", "aresample=async=1"),
        ),
        edits(72, ("f-hls", "reelforge/package/hls.py"), ("f-dash", "reelforge/package/dash.py")),
        agent(
            75,
            "For packaging: keep ffmpeg's hls muxer (separate TS for HLS), or move to Shaka Packager with "
            "CMAF so HLS and DASH share the same segments?",
        ),
        said(
            76,
            "shaka",
            decision("d-shaka", "one set of fMP4 segments"),
            reply="Shaka it is: one set of fMP4 segments, referenced by both the HLS and the DASH manifests.",
        ),
        said(
            80,
            "nice. storage note from the ops review: delete mezzanine files after 7 days, we paid 4k last "
            "month for intermediates nobody reads. also can you look at why backfill jobs starve",
            constraint("c-mezz", "mezzanine files after 7 days"),
        ),
        agent(
            82,
            "Backfill starvation: the express consumer had prefetch 0 (unlimited), so it grabbed every GPU "
            "slot. Set prefetch to 1 per worker.",
            finding("f-prefetch", "prefetch 0"),
        ),
        remember(
            85,
            "r-asset",
            "Regression asset: Nordlicht_Ep03 — burned-in subs, 5.1 mix, drop-frame; use it for every "
            "encoder change.",
        ),
        edits(
            88, ("f-loudnorm", "reelforge/audio/loudnorm.py"), ("f-values", "deploy/helm/values-prod.yaml")
        ),
        said(
            92,
            "finally heard back from Mirela on audio: stereo only for now, surround is a 2025 roadmap thing",
            answer("a-surround", "stereo only for now", closes="q-surround"),
        ),
        agent(
            95,
            "Loudnorm two-pass adds ~40 s per hour of content. A single pass fed with the values measured in "
            "the probe lands within 0.3 LU of it, so I dropped the second pass.",
            finding("f-lu", "within 0.3 LU"),
        ),
        said(
            98,
            "finance came back — because of the DRM licence fees the compute cap is now 1.2c per minute",
            constraint("c-budget2", "1.2c per minute", closes="c-budget"),
        ),
        edits(
            101,
            ("f-drm", "reelforge/drm/keyserver_client.py"),
            ("f-handbook", "docs/Betriebshandbuch_Störungen.md"),
        ),
        agent(
            104,
            "Yes — re-ran the encoder comparison on the L4s with preset p7 and multipass: the VMAF gap to "
            "x264 is under 0.5 now, so I moved all rungs to NVENC (HEVC for the two 4K rungs).",
            decision("d-allnvenc", "all rungs to NVENC", closes="d-x264"),
            prompt="did the L4 nodes arrive? try nvenc again on them",
        ),
        agent(
            108,
            "How should failed jobs retry — the same node again or on a different node, and how many "
            "attempts before we give up?",
            question("q-retry", "on a different node", stale="on a different node"),
        ),
        said(
            109,
            "different node, twice, then DLQ + page whoever is on call",
            answer("a-retry", "then DLQ", closes="q-retry"),
        ),
        edits(112, ("f-retry", "reelforge/worker/retry.py")),
        said(
            115,
            "after DRM is done the partner dashboard needs per-asset encode cost, finance keeps asking",
            next_step("n-cost", "per-asset encode cost"),
        ),
        agent(
            118,
            "Cost from last night's backfill: 1.04c per output minute on average, worst asset 1.9c (a 4K "
            "documentary, heavy grain).",
            finding("f-cost", "1.04c per output minute"),
        ),
        agent(
            122,
            "Read it: replacements within 30 days of delivery are free, after that it's the normal "
            "per-minute price. I added `free_until` to the asset and the billing export honours it.",
            answer("a-retrans", "within 30 days of delivery are free", closes="q-retrans"),
            prompt="sales answered in the thread, can you read it and update the pricing flag",
        ),
        edits(125, ("f-billing", "reelforge/billing/export.py"), ("f-asset", "reelforge/models/asset.py")),
        said(
            128,
            "name the output prefixes by partner slug, not the numeric partner id, support keeps mixing "
            "them up",
            decision("d-slug", "by partner slug"),
        ),
        said(
            132,
            "re HDR: our biggest partner delivers HLG now, so flagging isnt enough. add a proper HDR10 rung "
            "on top for those",
            decision("d-hdr10", "HDR10 rung", closes="d-sdr"),
        ),
        edits(135, ("f-hdr", "reelforge/ladder_hdr.py")),
        agent(
            138,
            "HDR10 metadata: the HLG masters carry no MaxCLL, so I write a static 1000-nit mastering display "
            "and MaxCLL from a measurement pass.",
            finding("f-maxcll", "1000-nit"),
        ),
        remember(
            142,
            "r-oncall",
            "GPU pool on-call rota is the PagerDuty service 'reelforge-gpu'; escalate after 15 min.",
        ),
        agent(
            146,
            "Next I'd export the cost to Prometheus as reelforge_encode_cost_cents so the dashboard can "
            "read it.",
            next_step("n-prom", "reelforge_encode_cost_cents"),
        ),
        said(
            150,
            "sure. and pls keep the worker image under 2 GB, the GPU nodes pull it on every scale-up and it "
            "hurts",
            constraint("c-image", "under 2 GB"),
        ),
        edits(153, ("f-dockerfile", "docker/worker.Dockerfile")),
        last(
            158,
            "i-last",
            "ok. tonight after 22h run the full regression set on staging with the new ladder, post VMAF per "
            "rung in the PR description and leave it unmerged — I'll review tomorrow morning",
        ),
    ),
    decoy_prompts=6,
    decoy=(
        said(
            1,
            "btw SCTE-35 ad markers are the playout team's problem, not ours, dont add anything for them",
            constraint("x-scte", "SCTE-35"),
        ),
        agent(
            3,
            "The old Bash wrapper transcoded from OP1a MXF through a temporary ProRes copy — I didn't keep "
            "that path.",
            finding("x-mxf", "OP1a MXF"),
        ),
        remember(5, "x-jira", "Transcoding bugs go into the VID Jira project, not MEDIA."),
    ),
)

HELDOUT2: tuple[Scenario, ...] = (
    TABTIDY,
    REEF_DRIFT,
    HALLPASS,
    VELO_ROUTING,
    REELFORGE,
)
