"""Sealed sessions 1-6: Go service, Rust CLI, React/vitest, Java/gradle, C++/ctest, Rails/rspec."""

from __future__ import annotations

from bench.sealed._kit import Session, looked, routine

GO_OK = "ok  \tgithub.com/acme/ledger/internal/store\t0.412s\nok  \tgithub.com/acme/ledger/internal/api\t0.220s\nok  \tgithub.com/acme/ledger/internal/money\t(cached)"


def go_ledger() -> None:
    s = Session(
        "go_ledger",
        "Go service",
        "ledger",
        11,
        [
            routine("run the tests for store", "go test ./internal/store/...", GO_OK, "Store tests pass."),
            routine("go vet pls", "go vet ./...", "", "`go vet` is clean."),
            looked(
                "show me how the repo reads entries",
                "internal/store/entries.go",
                'package store\n\nfunc (s *Store) Entries(ctx context.Context, date civil.Date) ([]Entry, error) {\n\trows, err := s.db.Query(ctx, qEntries, date)\n\tif err != nil {\n\t\treturn nil, fmt.Errorf("entries: %w", err)\n\t}\n\tdefer rows.Close()',
                "Entries are read per business date with one query; rows are scanned into `Entry` structs.",
            ),
            routine("lint", "golangci-lint run ./...", "0 issues.", "Linter is clean."),
        ],
    )
    t = s.t
    s.p(
        "hey. we need to move the nightly settlement job off the old cron box into the ledger service itself "
        "as a background worker. start by reading internal/settle/ and tell me what you see"
    )
    s.fact("clear", ["nightly settlement job"])
    t.tool(
        "Glob",
        {"pattern": "internal/settle/**/*.go"},
        "{{PROJECT}}/internal/settle/batch.go\n{{PROJECT}}/internal/settle/batch_test.go\n{{PROJECT}}/internal/settle/cutoff.go",
    )
    t.read(
        "internal/settle/batch.go",
        "package settle\n\n// SettleBatch sums the day's entries per merchant and writes payouts.\nfunc SettleBatch(ctx context.Context, st *store.Store, day civil.Date) error {\n\tentries, err := st.Entries(ctx, day)",
    )
    t.say(
        "`internal/settle` has `SettleBatch` (sums a day's entries per merchant, writes payouts) and a cutoff helper. Today `cmd/settle-cron` calls it once a night."
    )
    s.p("Do not change the public gRPC API in api/ledger/v1, the mobile app pins it.")
    s.fact("constraint_direct", ["do not change the public gRPC API"])
    t.say("Understood, `api/ledger/v1` stays untouched.")
    s.fill(5)
    s.p("for the job queue use redis streams, we already run redis for the rate limiter")
    s.fact("decision_reversal", ["redis streams"], status="superseded", stale="use redis streams")
    t.say("OK, I'll sketch the worker around a Redis stream consumer group.")
    s.fill(4)
    s.p(
        "here is what the cron box printed last night, maybe useful:\n\n```\npanic: runtime error: invalid memory address or nil pointer dereference\n"
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x8d2f4a]\n\ngoroutine 1 [running]:\n"
        "github.com/acme/ledger/internal/settle.(*Batch).flush(0x0)\n\t/src/internal/settle/batch.go:88 +0x2a\n"
        "github.com/acme/ledger/internal/settle.SettleBatch({0xb1c2d0, 0xc0001a2000}, 0xc0000b6000)\n\t/src/internal/settle/batch.go:41 +0x1f1\nexit status 2\n```"
    )
    t.read(
        "internal/settle/batch.go",
        "func (b *Batch) flush() error {\n\tif len(b.pending) == 0 {\n\t\treturn nil\n\t}",
    )
    t.say(
        "The panic is a nil `*Batch` when a merchant has no open batch; `flush` is called on it anyway. I'll guard it in the new worker."
    )
    s.fill(5)
    s.p("which timezone are the settlement cutoffs in? I think finance knows, I'll ask them")
    s.fact(
        "question_open",
        ["which timezone are the settlement cutoffs in"],
        status="answered",
        stale="which timezone are the settlement cutoffs in",
    )
    t.say("Noted. `cutoff.go` currently uses the server's local time, which is UTC on the cron box.")
    s.fill(4)
    s.p(
        "ok some context about this service since you are new to it. the ledger is the source of truth for merchant "
        "balances, payouts are computed from it, the finance team reconciles every morning against the bank files and "
        "they get really nervous when numbers move. also pls keep in mind we are not allowed log the IBAN anywhere, "
        "compliance was very angry last time it ended up in datadog. the worker will run on the same pods as the api "
        "so memory is tight, around 256Mi."
    )
    s.fact("constraint_indirect", ["not allowed log the IBAN"])
    t.say("Thanks, that helps. I'll keep IBANs out of every log line and keep the worker's memory small.")
    s.fill(3)
    t.todo(
        [
            ("Write settle worker with lease", "in_progress"),
            ("Guard nil batch in flush", "pending"),
            ("Wire worker into ledgerd", "pending"),
            ("Tests for reversed entries", "pending"),
        ]
    )
    s.p("go")
    t.write(
        "internal/settle/worker.go",
        "package settle\n\n// Worker runs SettleBatch once per business date, holding a lease.\ntype Worker struct {\n\tstore *store.Store\n\tlease time.Duration\n}\n",
    )
    t.say(
        "I created `internal/settle/worker.go`. For coordination between pods I suggest a 15-minute lease renewed by a "
        "heartbeat every 30 seconds, so a crashed pod's lease expires quickly and another pod picks the day up. Shall I go with that?"
    )
    s.fact("file", ["internal/settle/worker.go"], by="agent")
    s.p("ok do it")
    s.fact("decision_accepted", ["15-minute lease"], by="agent")
    t.edit(
        "internal/settle/worker.go", "lease time.Duration", "lease time.Duration // 15m, renewed every 30s"
    )
    t.say("Lease and heartbeat are in.")
    s.fill(5)
    s.p(
        "drop the redis thing. talked to ops, they dont want a new dependency on the ledger pods. we go with "
        "postgres advisory locks and a settle_jobs table, one row per business date"
    )
    s.fact("decision_reversal", ["postgres advisory locks", "settle_jobs"])
    t.edit(
        "internal/settle/worker.go",
        "// Redis stream consumer",
        "// pg_try_advisory_lock(hashtext(business_date))",
    )
    t.write(
        "migrations/0042_settle_jobs.sql",
        "CREATE TABLE settle_jobs (\n  business_date date PRIMARY KEY,\n  state text NOT NULL,\n  finished_at timestamptz\n);\n",
    )
    t.say(
        "Switched to a `settle_jobs` table plus an advisory lock per business date; the Redis code is gone."
    )
    s.fill(4)
    s.remember(
        "settlement worker must be idempotent per (merchant_id, business_date)",
        ["idempotent per (merchant_id, business_date)"],
    )
    s.p("finance answered: the cutoff is 23:00 Europe/Amsterdam, also on weekends")
    s.fact("answer", ["23:00 Europe/Amsterdam"])
    t.edit("internal/settle/cutoff.go", "time.Local", 'mustLoad("Europe/Amsterdam")')
    t.say("Cutoff now uses 23:00 in Europe/Amsterdam, every day.")
    s.fill(5)
    s.p("run all settle tests")
    t.bash(
        "go test ./internal/settle/...",
        "--- FAIL: TestSettleBatch_SkipsReversedEntries (0.03s)\n    batch_test.go:112: payout for m_204 = 1250, want 1000\nFAIL\nFAIL\tgithub.com/acme/ledger/internal/settle\t0.219s\nFAIL",
        error=True,
    )
    s.fact("failing_test", ["TestSettleBatch_SkipsReversedEntries"], by="tool")
    t.say(
        "One test in the settle package is still red; it looks related to how reversals are summed. I'll come back to it after the wiring."
    )
    s.fill(3)
    s.p("should the worker also backfill the missed days from the october outage? not sure, need to think")
    s.fact("question_open", ["backfill the missed days"])
    t.say("Leaving that open. The worker could take a date range later if needed.")
    s.fill(4)
    s.p("commit what we have")
    t.bash(
        'git add -A && git commit -m "settle: background worker with advisory lock and settle_jobs table"',
        "[feat/settle-worker 8c1e2f4] settle: background worker with advisory lock and settle_jobs table\n 4 files changed, 212 insertions(+), 9 deletions(-)",
    )
    t.say("Committed on `feat/settle-worker`.")
    s.fill(3)
    s.p(
        "before you stop: wire the worker into cmd/ledgerd/main.go behind the SETTLE_WORKER_ENABLED env flag, default off"
    )
    s.fact("last_instruction", ["SETTLE_WORKER_ENABLED"])
    t.read("cmd/ledgerd/main.go", "func main() {\n\tcfg := config.MustLoad()\n\tsrv := api.New(cfg)")
    t.say("Reading `main.go` to find where to start the worker.")

    s.d("rotate the TLS certs for the staging gateway, they expire friday")
    s.decoy.bash(
        "kubectl -n gateway get certificate",
        "NAME          READY   SECRET        AGE\nstaging-gw    False   staging-gw    89d",
    )
    s.decoy.say("The staging certificate is not ready; its issuer is failing.")
    s.d("use the cert-manager ClusterIssuer letsencrypt-dns01, not the http one")
    s.decoy_fact(["letsencrypt-dns01"])
    s.decoy.say("Switched the Certificate to `letsencrypt-dns01`.")
    s.d("and bump the gateway chart to 4.7.2 while you are there")
    s.decoy_fact(["gateway chart to 4.7.2"])
    s.decoy.say("Bumped.")
    s.write(
        "Primary Request: move the nightly settlement cron into the ledger service as a background worker.\n"
        "Work done: worker.go created, lease, advisory locks, cutoff timezone, migration 0042. Pending: wiring into ledgerd."
    )


def rust_cli() -> None:
    s = Session(
        "rust_cli",
        "Rust CLI",
        "tq",
        22,
        [
            routine(
                "cargo check",
                "cargo check",
                "    Checking tq v0.9.1 (/src/tq)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 2.31s",
                "Compiles.",
            ),
            routine(
                "clippy",
                "cargo clippy --all-targets -- -D warnings",
                "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 4.02s",
                "Clippy is happy.",
            ),
            looked(
                "what does the lexer look like",
                "src/lexer.rs",
                "pub enum Token<'a> {\n    Ident(&'a str),\n    Number(f64),\n    Pipe,\n    Dot,\n}",
                "A small hand-written lexer over `&str` with borrowed identifiers.",
            ),
        ],
    )
    t = s.t
    s.p(
        "i want to add a --format flag to tq so output can be yaml or toml not just json. the cli is in src/main.rs with clap"
    )
    s.fact("clear", ["--format flag"])
    t.read(
        "src/main.rs",
        "#[derive(Parser)]\nstruct Cli {\n    filter: String,\n    #[arg(short, long)]\n    compact: bool,\n}",
    )
    t.say("The CLI is a clap derive struct with `filter` and `--compact`. I'll add a `--format` value enum.")
    s.p("constraints:\n- msrv stays 1.74\n- no new deps with a build.rs\n- binary size under 3 MB stripped")
    s.fact("constraint_indirect", ["no new deps with a build.rs"])
    s.fact("constraint_indirect", ["msrv stays 1.74"])
    t.say("Noted: MSRV 1.74, no dependencies with build scripts, stripped binary under 3 MB.")
    s.fill(3)
    t.say(
        "For YAML I propose `serde_yaml_ng` (pure Rust, no build.rs) and for TOML the `toml` crate with default features off. Option A: both behind cargo features `yaml` and `toml`, default on. Option B: always compiled in. Which one?"
    )
    s.p("A")
    s.fact("decision_accepted", ["cargo features", "serde_yaml_ng"], by="agent")
    t.edit(
        "Cargo.toml",
        "[features]",
        '[features]\ndefault = ["yaml", "toml"]\nyaml = ["dep:serde_yaml_ng"]\ntoml = ["dep:toml"]',
    )
    t.say("Added the two features, default on.")
    s.fill(3)
    s.p("Never print colors when stdout is not a tty.")
    s.fact("constraint_direct", ["never print colors when stdout is not a tty"])
    t.say("I'll check `std::io::IsTerminal` before colouring.")
    s.fill(3)
    s.p("does toml output need to handle top-level arrays? toml can't represent them")
    s.fact(
        "question_open",
        ["top-level arrays"],
        status="answered",
        stale="does toml output need to handle top-level arrays",
    )
    t.say("Right, TOML needs a table at the top. We could wrap or refuse; your call.")
    s.fill(2)
    s.p("wrap it, under a key called `items`. that's what yq does too")
    s.fact("answer", ["key called `items`"])
    t.write(
        "src/format.rs",
        "pub enum Format { Json, Yaml, Toml }\n\npub fn render(v: &Value, f: Format) -> Result<String> {\n    match f {\n        Format::Toml => toml::to_string(&wrap_items(v)),",
    )
    s.fact("file", ["src/format.rs"], by="agent")
    t.say("Created `src/format.rs`; top-level arrays are wrapped under `items` for TOML.")
    s.fill(2)
    s.p("for the yaml indentation go with 4 spaces")
    s.fact("decision_reversal", ["4 spaces"], status="superseded", stale="yaml indentation go with 4 spaces")
    t.say("4 spaces it is.")
    s.fill(2)
    s.p("hmm 4 looks weird next to kubectl output. 2 spaces for yaml, like everybody")
    s.fact("decision_reversal", ["2 spaces for yaml"])
    t.edit("src/format.rs", "indent(4)", "indent(2)")
    t.say("YAML is indented by 2 spaces now.")
    s.remember(
        "release notes must mention --format and the items wrapping",
        ["mention --format and the items wrapping"],
    )
    s.p("cargo test")
    long = "\n".join(f"test lexer::tests::token_{n:02d} ... ok" for n in range(40))
    t.bash(
        "cargo test",
        "   Compiling tq v0.9.1 (/src/tq)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 6.10s\n     Running unittests src/main.rs (target/debug/deps/tq-3f1c2a)\n\nrunning 44 tests\n"
        + long
        + '\ntest format::tests::toml_wraps_top_level_array ... ok\ntest format::tests::yaml_roundtrip_unicode_keys ... FAILED\ntest format::tests::json_compact ... ok\n\nfailures:\n\n---- format::tests::yaml_roundtrip_unicode_keys stdout ----\nthread \'format::tests::yaml_roundtrip_unicode_keys\' panicked at src/format.rs:88:9:\nassertion `left == right` failed\n  left: "\\"caf\\\\u00e9\\": 1"\n right: "café: 1"\n\nfailures:\n    format::tests::yaml_roundtrip_unicode_keys\n\ntest result: FAILED. 43 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.04s',
        error=True,
    )
    s.fact("failing_test", ["yaml_roundtrip_unicode_keys"], by="tool")
    t.say(
        "43 of 44 pass; one formatting test fails on a non-ASCII key. I'll look at the emitter's escaping next."
    )
    s.fill(2)
    s.p("is there a way to keep key order from the input? dont fix now, just wondering")
    s.fact("question_open", ["keep key order from the input"])
    t.say("Possibly with `serde_json`'s `preserve_order` feature; not changing anything now.")
    s.p("ok last thing today: add a snapshot test per format with insta, under tests/snapshots")
    s.fact("last_instruction", ["snapshot test per format with insta"])
    t.say("Adding `insta` as a dev-dependency and one snapshot per format.")

    s.d("the release workflow fails on aarch64 musl, can you look")
    s.decoy.bash(
        "gh run view 8812 --log-failed | tail -5", "error: linker `aarch64-linux-musl-gcc` not found"
    )
    s.decoy.say("The musl cross linker is missing in the runner image.")
    s.d("use cross-rs with the zig linker for that target")
    s.decoy_fact(["zig linker"])
    s.decoy.say("Switched the aarch64-musl job to `cross` with zig.")
    s.write(
        "Primary Request: add --format (json/yaml/toml) to tq. Done: features, format.rs, TOML wrapping. Pending: snapshot tests."
    )


def react_dash() -> None:
    vitest_ok = " ✓ src/components/Chart.test.tsx (6 tests) 41ms\n ✓ src/hooks/useRange.test.ts (9 tests) 12ms\n\n Test Files  2 passed (2)\n      Tests  15 passed (15)\n   Duration  1.92s"
    s = Session(
        "react_dash",
        "React/vitest app",
        "ops-dashboard",
        33,
        [
            routine(
                "run vitest on components",
                "npx vitest run src/components src/hooks",
                vitest_ok,
                "Component and hook tests pass.",
            ),
            routine("typecheck", "npx tsc --noEmit", "", "No type errors."),
            routine("eslint", "npx eslint src --max-warnings 0", "", "ESLint clean."),
            looked(
                "show me the range hook",
                "src/hooks/useRange.ts",
                "export function useRange(initial: Range) {\n  const [range, setRange] = useState(initial)\n  return { range, setRange }\n}",
                "A thin `useState` wrapper; the URL is not involved yet.",
            ),
            routine(
                "start the dev server and check it builds",
                "npx vite build",
                "vite v5.4.11 building for production...\n✓ 812 modules transformed.\ndist/assets/index-Bq3x1.js   412.18 kB │ gzip: 131.02 kB\n✓ built in 5.22s",
                "Production build is fine.",
            ),
        ],
    )
    t = s.t
    s.p(
        "we're adding a latency heatmap panel to the ops dashboard. data comes from /api/metrics/latency. components in src/components, tests with vitest"
    )
    s.fact("clear", ["latency heatmap panel"])
    t.grep("metrics/latency", ["src/api/client.ts", "src/api/types.ts"])
    t.say(
        "The API client already has a `latency` call returning buckets per minute. I'll build the panel on it."
    )
    s.fill(6)
    s.p("No new charting library, we already ship recharts and that's enough.")
    s.fact("constraint_direct", ["no new charting library"])
    t.say("Staying with recharts.")
    s.fill(8)
    s.p(
        "the endpoint is slow sometimes, here a HAR snippet from chrome:\n\n```\n:authority: ops.internal.acme.io\n:method: GET\n:path: /api/metrics/latency?from=1731400000&to=1731486400&step=60\naccept: application/json\nx-request-id: 7f3c9b2e-a1d4-4e2b-9c8f-0d1e2f3a4b5c\nx-envoy-upstream-service-time: 4812\ncache-control: no-cache\n```"
    )
    t.say(
        "4.8 s upstream for a day at 60 s steps. I'll request a coarser step for ranges over 6 hours and show a skeleton while loading."
    )
    s.fill(6)
    s.p("colors for the heatmap: use the viridis scale")
    s.fact("decision_reversal", ["viridis scale"], status="superseded", stale="use the viridis scale")
    t.say("Viridis, fine.")
    s.fill(8)
    t.todo(
        [
            ("Heatmap component with recharts", "completed"),
            ("Coarser step for long ranges", "in_progress"),
            ("URL state for range", "pending"),
            ("a11y labels", "pending"),
        ]
    )
    s.p("what's the p99 threshold the SRE team wants highlighted? I'll ask Marta")
    s.fact(
        "question_open",
        ["p99 threshold"],
        status="answered",
        stale="what's the p99 threshold the SRE team wants highlighted",
    )
    t.say("Until then I'll make the highlight threshold a prop.")
    s.fill(8)
    t.say(
        "For the selected time range I suggest keeping it in the URL query string (`?from=&to=`) via `useSearchParams`, so a shared link opens the same view. OK?"
    )
    s.p("👍")
    s.fact("decision_accepted", ["useSearchParams"], by="agent")
    t.edit(
        "src/hooks/useRange.ts",
        "const [range, setRange] = useState(initial)",
        "const [params, setParams] = useSearchParams()",
    )
    t.say("Range now lives in the URL.")
    s.fill(8)
    s.p(
        "some notes from the design review yesterday, sorry for the wall of text. people liked the panel in general, "
        "the product owner wants it on the overview page later but not in this PR. the designer said the cells are too "
        "small on laptop screens, make them at least 12px high. also the legend has to be readable in dark mode. and "
        "the accessibility person reminded everyone that every chart needs an aria-label describing what it shows, "
        "we failed the audit on that last quarter. nothing else i think"
    )
    s.fact("constraint_indirect", ["at least 12px high"])
    s.fact("constraint_indirect", ["needs an aria-label"])
    t.say("Got it: cells ≥ 12px, readable legend in dark mode, an aria-label on the chart.")
    s.fill(8)
    s.p(
        "the viridis looks muddy on the dark theme. take the red-yellow palette from our design tokens, --heat-1 to --heat-9"
    )
    s.fact("decision_reversal", ["--heat-1 to --heat-9"])
    t.edit("src/components/LatencyHeatmap.tsx", "interpolateViridis", "heatToken(bucket)")
    s.fact("file", ["src/components/LatencyHeatmap.tsx"], by="agent")
    t.say("Cells now take `--heat-1`…`--heat-9` from the design tokens.")
    s.fill(8)
    s.p("Marta says highlight everything above 800 ms p99 with a dashed outline")
    s.fact("answer", ["800 ms p99"])
    t.edit("src/components/LatencyHeatmap.tsx", "threshold?: number", "threshold = 800")
    t.say("Cells above 800 ms p99 get a dashed outline.")
    s.fill(6)
    s.remember(
        "heatmap goes on the overview page in a follow-up PR, not this one",
        ["overview page in a follow-up PR"],
    )
    s.p("run the whole test suite")
    passing = "\n".join(f" ✓ src/components/Widget{n:02d}.test.tsx (4 tests) {10 + n}ms" for n in range(30))
    t.bash(
        "npx vitest run",
        passing
        + "\n ❯ src/components/LatencyHeatmap.test.tsx (7 tests | 1 failed) 88ms\n   × LatencyHeatmap > renders an empty state when all buckets are null 21ms\n     → expected 'No data' to be in the document\n\n Test Files  1 failed | 30 passed (31)\n      Tests  1 failed | 126 passed (127)\n   Duration  6.41s",
        error=True,
    )
    s.fact("failing_test", ["renders an empty state when all buckets are null"], by="tool")
    t.say(
        "All but one pass; the failure is in the new panel's empty-data path. I'll fix it after the legend work."
    )
    s.fill(6)
    s.p("should the panel poll every 30s or only refresh on focus? leaving that for later")
    s.fact("question_open", ["poll every 30s or only refresh on focus"])
    t.say("Leaving refresh behaviour open.")
    s.fill(5)
    s.p("commit, message 'dashboard: latency heatmap panel'")
    t.bash(
        "git commit -am 'dashboard: latency heatmap panel'",
        "[feat/latency-heatmap 1b7d3e0] dashboard: latency heatmap panel\n 6 files changed, 318 insertions(+), 12 deletions(-)",
    )
    t.say("Committed.")
    s.fill(6)
    s.p("now make the legend a separate component HeatLegend with its own test, then stop")
    s.fact("last_instruction", ["HeatLegend"])
    t.say("Extracting `HeatLegend` into its own component with a test.")

    s.d("upgrade react-router to v7 in the dashboard")
    s.decoy.say("Upgrading react-router; the data APIs moved.")
    s.d("keep the future flag v7_startTransition on")
    s.decoy_fact(["v7_startTransition"])
    s.decoy.say("Kept it.")
    s.write(
        "Primary Request: latency heatmap panel on the ops dashboard. Done: component, URL range, colours, threshold. Pending: legend component."
    )


def java_billing() -> None:
    s = Session(
        "java_billing",
        "Java/gradle",
        "billing",
        44,
        [
            routine("compile", "./gradlew compileJava -q", "", "Compiles."),
            routine(
                "spotless",
                "./gradlew spotlessCheck",
                "BUILD SUCCESSFUL in 3s\n4 actionable tasks: 1 executed, 3 up-to-date",
                "Formatting is fine.",
            ),
            looked(
                "open the invoice service",
                "src/main/java/com/acme/billing/InvoiceService.java",
                "@Service\npublic class InvoiceService {\n    private final InvoiceRepository repo;\n    public Invoice issue(Order order) {",
                "`InvoiceService.issue` builds an invoice from an order and saves it.",
            ),
        ],
    )
    t = s.t
    s.p(
        "Task for today: prorated invoices when a customer changes plan mid-cycle. Billing module, spring boot 3, gradle."
    )
    s.fact("clear", ["prorated invoices"])
    t.grep(
        "class .*Plan",
        ["src/main/java/com/acme/billing/Plan.java", "src/main/java/com/acme/billing/PlanChange.java"],
    )
    t.say("There's a `PlanChange` event already; nothing computes proration yet.")
    s.fill(3)
    s.p("All money is BigDecimal with scale 2 and RoundingMode.HALF_EVEN. No doubles anywhere in billing.")
    s.fact("constraint_direct", ["RoundingMode.HALF_EVEN"])
    t.say("Understood.")
    s.fill(4)
    s.p("prorate by calendar days of the month")
    s.fact(
        "decision_reversal",
        ["calendar days of the month"],
        status="superseded",
        stale="prorate by calendar days of the month",
    )
    t.say("Proration by calendar days, OK.")
    s.fill(4)
    t.say(
        "I propose a `ProrationCalculator` as a pure class (no Spring) with `credit(oldPlan, from, to)` and `charge(newPlan, from, to)`, so it can be unit-tested without the context. Go ahead?"
    )
    s.p("sounds good")
    s.fact("decision_accepted", ["ProrationCalculator"], by="agent")
    t.write(
        "src/main/java/com/acme/billing/ProrationCalculator.java",
        "public final class ProrationCalculator {\n    public BigDecimal credit(Plan old, LocalDate from, LocalDate to) {",
    )
    s.fact("file", ["ProrationCalculator.java"], by="agent")
    t.say("Created the calculator.")
    s.fill(4)
    s.p("who pays the difference for an upgrade on the last day of the cycle? i need to check with finance")
    s.fact(
        "question_open",
        ["upgrade on the last day of the cycle"],
        status="answered",
        stale="who pays the difference for an upgrade on the last day of the cycle",
    )
    t.say("I'll leave a TODO there.")
    s.fill(3)
    s.p(
        "finance changed their mind, they want proration on a 30-day month always, calendar is too confusing for customers"
    )
    s.fact("decision_reversal", ["30-day month"])
    t.edit("src/main/java/com/acme/billing/ProrationCalculator.java", "from.lengthOfMonth()", "THIRTY")
    t.say("Proration uses a fixed 30-day month now.")
    s.fill(3)
    s.p("about the last day: finance says upgrade on last day is free, no charge below 1 EUR")
    s.fact("answer", ["no charge below 1 EUR"])
    t.say("Charges under 1 EUR are dropped.")
    s.p(
        "Requirements from the ticket BILL-2291, copied:\n\n* invoices must show old plan credit and new plan charge as two separate lines\n* the VAT is computed on the net after proration, not before\n* keep the invoice number sequence gapless"
    )
    s.fact("constraint_indirect", ["VAT is computed on the net after proration"])
    s.fact("constraint_indirect", ["invoice number sequence gapless"])
    t.say("Two lines, VAT after proration, gapless numbering.")
    s.fill(3)
    s.remember("BILL-2291 is due for the march release train", ["march release train"])
    s.p("run the tests")
    t.bash(
        "./gradlew test",
        "> Task :test\n\nProrationCalculatorTest > creditForDowngradeOnFirstDay() PASSED\nProrationCalculatorTest > chargeIsZeroOnLastDay() PASSED\n\nInvoiceServiceTest > issuesTwoLinesOnPlanChange() FAILED\n    org.opentest4j.AssertionFailedError: expected: <2> but was: <1>\n        at app//org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)\n        at app//com.acme.billing.InvoiceServiceTest.issuesTwoLinesOnPlanChange(InvoiceServiceTest.java:64)\n\n38 tests completed, 1 failed\n\n> Task :test FAILED\n\nFAILURE: Build failed with an exception.\n\nBUILD FAILED in 14s",
        error=True,
    )
    s.fact("failing_test", ["issuesTwoLinesOnPlanChange"], by="tool")
    t.say(
        "The calculator tests pass; the service-level test still fails, the invoice gets one line. Next I'll split the lines in `InvoiceService`."
    )
    s.fill(3)
    s.p(
        "do we need to email the customer a new invoice pdf or is the portal enough? open question for product"
    )
    s.fact("question_open", ["email the customer a new invoice pdf"])
    t.say("Noted as open.")
    s.fill(2)
    s.p("git commit -m 'billing: proration calculator'")
    t.bash(
        "git commit -am 'billing: proration calculator'",
        "[BILL-2291 4e9a0c1] billing: proration calculator\n 3 files changed, 164 insertions(+)",
    )
    t.say("Committed.")
    s.p(
        "next: split the invoice into the two lines in InvoiceService.issue and make issuesTwoLinesOnPlanChange green"
    )
    s.fact("last_instruction", ["split the invoice into the two lines"])
    t.read(
        "src/main/java/com/acme/billing/InvoiceService.java",
        "public Invoice issue(Order order) {\n    Invoice inv = new Invoice(order.customer());",
    )
    t.say("Looking at `issue` now.")

    s.d("the dunning emails go out twice, check the scheduler")
    s.decoy.say("Two instances run the `@Scheduled` job; there's no lock.")
    s.d("add shedlock with the jdbc provider")
    s.decoy_fact(["shedlock"])
    s.decoy.say("ShedLock added.")
    s.write(
        "Primary Request: prorated invoices on plan change (BILL-2291). Done: ProrationCalculator, 30-day month. Pending: two invoice lines."
    )


def cpp_geo() -> None:
    s = Session(
        "cpp_geo",
        "C++/ctest",
        "geokit",
        55,
        [
            routine(
                "build",
                "cmake --build build -j8",
                "[ 12%] Building CXX object src/CMakeFiles/geokit.dir/polygon.cpp.o\n[100%] Linking CXX static library libgeokit.a\n[100%] Built target geokit",
                "Builds.",
            ),
            looked(
                "show polygon.hpp",
                "include/geokit/polygon.hpp",
                "class Polygon {\npublic:\n  explicit Polygon(std::vector<Point> ring);\n  double area() const;\n  bool contains(Point p) const;",
                "A simple ring polygon with area and point-in-polygon.",
            ),
        ],
    )
    t = s.t
    s.p(
        "need polygon simplification (douglas-peucker) in geokit. header-only api in include/geokit, impl in src"
    )
    s.fact("clear", ["douglas-peucker"])
    t.read(
        "include/geokit/polygon.hpp", "class Polygon {\npublic:\n  explicit Polygon(std::vector<Point> ring);"
    )
    t.say("I'll add `simplify(double tolerance)` to the API and implement it in `src/simplify.cpp`.")
    s.p("C++17 only, we still build on the old RHEL 8 toolchain. no C++20 features.")
    s.fact("constraint_direct", ["RHEL 8 toolchain"])
    t.say("C++17 only.")
    s.fill(4)
    t.say(
        "Should simplification keep the ring closed and never produce fewer than 4 points (a valid ring)? I'd enforce a minimum of 4 and return the input unchanged otherwise."
    )
    s.p("yes")
    s.fact("decision_accepted", ["minimum of 4"], by="agent")
    t.write(
        "src/simplify.cpp",
        '#include "geokit/polygon.hpp"\n\nnamespace geokit {\nPolygon Polygon::simplify(double tol) const {',
    )
    s.fact("file", ["src/simplify.cpp"], by="agent")
    t.say("Implemented in `src/simplify.cpp`.")
    s.fill(4)
    s.p("tolerance in meters, convert with haversine")
    s.fact(
        "decision_reversal",
        ["convert with haversine"],
        status="superseded",
        stale="tolerance in meters, convert with haversine",
    )
    t.say("OK.")
    s.p("no wait that's slow for big rings. tolerance is in the input units (degrees), caller converts")
    s.fact("decision_reversal", ["tolerance is in the input units"])
    t.edit("src/simplify.cpp", "haversine(a, b)", "perpendicular_distance(p, a, b)")
    t.say("Tolerance is now in input units.")
    s.p(
        "btw our ci machine are small, please dont make the tests allocate more than like 200MB, "
        "the runner get OOM killed and nobody look at the logs for days"
    )
    s.fact("constraint_indirect", ["more than like 200MB"])
    t.say("I'll keep the test fixtures small.")
    s.p("does boost::geometry have this already? maybe we just wrap it?")
    s.fact(
        "question_open",
        ["does boost::geometry have this already"],
        status="answered",
        stale="does boost::geometry have this already",
    )
    t.say("I'll check after the first version.")
    s.fill(4)
    s.remember("geokit 2.3 is the first version with simplify", ["geokit 2.3"])
    s.p("run ctest")
    t.bash(
        "ctest --test-dir build --output-on-failure",
        "Test project /src/geokit/build\n    Start 1: polygon_area\n1/4 Test #1: polygon_area .....................   Passed    0.01 sec\n    Start 2: polygon_contains\n2/4 Test #2: polygon_contains .................   Passed    0.01 sec\n    Start 3: simplify_keeps_ring_closed\n3/4 Test #3: simplify_keeps_ring_closed .......***Failed    0.02 sec\n/src/geokit/tests/simplify_test.cpp:41: FAILED: REQUIRE( out.front() == out.back() )\n    Start 4: simplify_noop_small\n4/4 Test #4: simplify_noop_small ..............   Passed    0.00 sec\n\n75% tests passed, 1 tests failed out of 4\n\nThe following tests FAILED:\n\t  3 - simplify_keeps_ring_closed (Failed)\nErrors while running CTest",
        error=True,
    )
    s.fact("failing_test", ["simplify_keeps_ring_closed"], by="tool")
    t.say("3 of 4 pass. I'll look at the ring closure after the boost check.")
    s.p(
        "about boost: we can't, boost is banned in geokit because of the license review, so own implementation"
    )
    s.fact("answer", ["boost is banned in geokit"])
    t.say("Own implementation then.")
    s.p("what about 3D points, do we ever need z? no idea yet")
    s.fact("question_open", ["do we ever need z"])
    t.say("Leaving z out for now.")
    s.fill(4)
    s.p("ok now add a benchmark with google benchmark for 1M point rings and stop there")
    s.fact("last_instruction", ["google benchmark for 1M point rings"])
    t.say("Adding `bench/simplify_bench.cpp`.")

    s.d("the windows build of geokit breaks on M_PI")
    s.decoy.say("MSVC needs `_USE_MATH_DEFINES`.")
    s.d("define _USE_MATH_DEFINES in the cmake target, not in headers")
    s.decoy_fact(["_USE_MATH_DEFINES"])
    s.decoy.say("Done in CMake.")
    s.write("Primary Request: Douglas-Peucker simplify in geokit. Pending: benchmark.")


def rails_shop() -> None:
    rspec_ok = "..........................\n\nFinished in 2.84 seconds (files took 1.91 seconds to load)\n26 examples, 0 failures"
    s = Session(
        "rails_shop",
        "Rails/rspec",
        "storefront",
        66,
        [
            routine("run model specs", "bundle exec rspec spec/models", rspec_ok, "Model specs are green."),
            routine(
                "rubocop",
                "bundle exec rubocop app",
                "Inspecting 214 files\n......\n\n214 files inspected, no offenses detected",
                "No offenses.",
            ),
            looked(
                "show the order model",
                "app/models/order.rb",
                "class Order < ApplicationRecord\n  belongs_to :customer\n  has_many :line_items, dependent: :destroy\n  enum :state, { cart: 0, placed: 1, shipped: 2 }",
                "Order has line items and a state enum (cart, placed, shipped).",
            ),
            routine(
                "migrate status",
                "bin/rails db:migrate:status | tail -3",
                "   up     20261101101500  Add index to orders state\n   up     20261105090000  Create gift cards",
                "All migrations are up.",
            ),
        ],
    )
    t = s.t
    s.p(
        "we need gift card redemption at checkout. gift cards exist already (app/models/gift_card.rb), checkout is app/services/checkout.rb"
    )
    s.fact("clear", ["gift card redemption at checkout"])
    t.read(
        "app/services/checkout.rb",
        "class Checkout\n  def call(order, payment_method)\n    order.with_lock do\n      charge!(order.total, payment_method)",
    )
    t.say(
        "`Checkout#call` charges the full total under a row lock. Redemption has to happen inside that lock."
    )
    s.fill(5)
    s.p("Gift card balance changes must go through GiftCard#debit!, never update balance_cents directly.")
    s.fact("constraint_direct", ["never update balance_cents directly"])
    t.say("Everything goes through `debit!`.")
    s.fill(5)
    s.p(
        "here is the error from staging when i tried a card by hand:\n\n```\nActiveRecord::StaleObjectError (Attempted to update a stale object: GiftCard.):\n  app/models/gift_card.rb:27:in `debit!'\n  app/services/checkout.rb:19:in `block in call'\n  activerecord (7.2.1) lib/active_record/locking/optimistic.rb:113:in `_update_row'\n```"
    )
    t.say(
        "The gift card has optimistic locking (`lock_version`); two requests raced. We should lock the card row pessimistically inside the checkout transaction."
    )
    s.fill(5)
    t.say(
        "Proposal: `GiftCard.lock.find_by!(code:)` inside the order's transaction, then `debit!`, and retry the whole checkout once on `StaleObjectError`. OK?"
    )
    s.p("ok")
    s.fact("decision_accepted", ["retry the whole checkout once"], by="agent")
    t.edit(
        "app/services/checkout.rb",
        "order.with_lock do",
        "order.with_lock do\n      card = GiftCard.lock.find_by!(code: gift_code) if gift_code",
    )
    t.say("Done.")
    s.fill(5)
    s.p("partial redemption: if the card covers less than the total, charge the rest on the credit card")
    s.fill(3)
    s.p("one card per order for now")
    s.fact(
        "decision_reversal", ["one card per order"], status="superseded", stale="one card per order for now"
    )
    t.say("One card per order.")
    s.fill(6)
    s.p("can gift cards pay for shipping too or only items? asking legal")
    s.fact(
        "question_open",
        ["pay for shipping too"],
        status="answered",
        stale="can gift cards pay for shipping too",
    )
    t.say("Until legal answers I'll apply cards to the whole total.")
    s.fill(6)
    s.p(
        "few things from the team standup:\n  - the redemption must be logged in the audit_events table with the card's last 4 only\n  - support wants to see the redeemed amount in the admin order page\n  - finance: refunds go back to the card, not to stripe"
    )
    s.fact("constraint_indirect", ["card's last 4 only"])
    s.fact("constraint_indirect", ["refunds go back to the card"])
    t.say("Audit event with last 4, amount in admin, refunds to the card.")
    s.fill(5)
    s.p("marketing wants stacking, customers can use up to 3 cards on one order")
    s.fact("decision_reversal", ["up to 3 cards on one order"])
    t.write(
        "app/services/gift_card_redemption.rb",
        "class GiftCardRedemption\n  MAX_CARDS = 3\n\n  def initialize(order, codes)",
    )
    s.fact("file", ["app/services/gift_card_redemption.rb"], by="agent")
    t.say("Extracted `GiftCardRedemption` with up to 3 cards.")
    s.fill(5)
    s.p("legal says yes shipping is fine but NOT gift wrapping fees, those are a separate merchant of record")
    s.fact("answer", ["NOT gift wrapping fees"])
    t.say("Gift wrapping excluded from the redeemable amount.")
    s.fill(5)
    s.remember("staging gift card codes: use the GC-TEST- prefix only", ["GC-TEST- prefix"])
    s.p("run the checkout specs")
    t.bash(
        "bundle exec rspec spec/services",
        "....F......\n\nFailures:\n\n  1) GiftCardRedemption with three cards debits them in expiry order\n     Failure/Error: expect(cards.map(&:balance_cents)).to eq([0, 0, 1500])\n\n       expected: [0, 0, 1500]\n            got: [0, 1500, 0]\n\n     # ./spec/services/gift_card_redemption_spec.rb:58:in `block (3 levels) in <top (required)>'\n\nFinished in 1.42 seconds (files took 2.03 seconds to load)\n11 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/services/gift_card_redemption_spec.rb:52 # GiftCardRedemption with three cards debits them in expiry order",
        error=True,
    )
    s.fact("failing_test", ["debits them in expiry order"], by="tool")
    t.say("One example fails on the ordering of cards. I'll sort them next.")
    s.fill(5)
    s.p("do we show remaining balance on the receipt email? nobody decided")
    s.fact("question_open", ["remaining balance on the receipt email"])
    t.say("Open.")
    s.fill(4)
    s.p("commit and push the branch")
    t.bash(
        "git commit -am 'checkout: gift card redemption' && git push -u origin gift-cards",
        "[gift-cards 9d0e1f2] checkout: gift card redemption\n 7 files changed, 241 insertions(+), 18 deletions(-)\nbranch 'gift-cards' set up to track 'origin/gift-cards'.",
    )
    t.say("Pushed.")
    s.fill(3)
    s.p("last: add the redeemed amount column to the admin order page (app/views/admin/orders/show.html.erb)")
    s.fact("last_instruction", ["admin/orders/show.html.erb"])
    t.say("Adding it.")

    s.d("sitemap generation takes 40 minutes, make it faster")
    s.decoy.say("It loads every product with all associations.")
    s.d("use find_each with batch size 2000 and skip discontinued products")
    s.decoy_fact(["batch size 2000"])
    s.decoy.say("Done.")
    s.write("Primary Request: gift card redemption at checkout. Pending: admin order page column.")


ALL = (go_ledger, rust_cli, react_dash, java_billing, cpp_geo, rails_shop)
