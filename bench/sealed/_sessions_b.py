"""Sealed sessions 7-12: data pipeline, Terraform infra, Android, TypeScript API, ML training, firmware."""

from __future__ import annotations

from bench.sealed._kit import Session, looked, routine


def py_etl() -> None:
    s = Session(
        "py_etl",
        "Python/pytest data pipeline",
        "events-etl",
        77,
        [
            routine(
                "run the unit tests",
                "pytest tests/unit -q",
                "........................................ [100%]\n40 passed in 1.88s",
                "Unit tests pass.",
            ),
            routine("mypy", "mypy etl", "Success: no issues found in 31 source files", "Types check."),
            looked(
                "show the dag",
                "dags/events_daily.py",
                "with DAG('events_daily', schedule='0 3 * * *', catchup=False) as dag:\n    extract = PythonOperator(task_id='extract', python_callable=extract_events)",
                "A daily DAG at 03:00 with extract, transform and load tasks.",
            ),
            routine("ruff", "ruff check etl tests", "All checks passed!", "Ruff is clean."),
            routine(
                "check the sample file size",
                "ls -lh data/sample/",
                "total 48M\n-rw-r--r-- 1 ana ana 48M Nov 10 09:12 events-2026-11-09.jsonl.gz",
                "The sample day is 48 MB compressed.",
            ),
        ],
    )
    t = s.t
    s.p(
        "the events_daily airflow dag needs to write parquet partitioned by event_date to the lake instead of csv. code in etl/, dag in dags/"
    )
    s.fact("clear", ["parquet partitioned by event_date"])
    t.read(
        "etl/load.py",
        "def load(df: pd.DataFrame, day: date) -> None:\n    df.to_csv(f's3://acme-lake/events/{day}.csv', index=False)",
    )
    t.say("`load` writes one CSV per day to S3. I'll switch it to partitioned Parquet.")
    s.fill(8)
    s.p("Never drop rows with a null user_id, anonymous events are half of our traffic.")
    s.fact("constraint_direct", ["never drop rows with a null user_id"])
    t.say("Nulls are kept.")
    s.fill(10)
    s.p("use pandas + pyarrow for the write")
    s.fact(
        "decision_reversal",
        ["pandas + pyarrow"],
        status="superseded",
        stale="use pandas + pyarrow for the write",
    )
    t.say("OK.")
    s.fill(10)
    s.p(
        'the worker died on the big day, log:\n\n```\n[2026-11-09, 03:41:12 UTC] {taskinstance.py:2905} ERROR - Task failed with exception\nTraceback (most recent call last):\n  File "/opt/airflow/etl/transform.py", line 64, in transform\n    df = pd.concat(frames, ignore_index=True)\nnumpy.core._exceptions._ArrayMemoryError: Unable to allocate 11.2 GiB for an array with shape (1503238553,) and data type int64\n[2026-11-09, 03:41:12 UTC] {local_task_job_runner.py:240} INFO - Task exited with return code 1\n```'
    )
    t.say("Concatenating the whole day in pandas needs ~11 GiB. We need to stream it.")
    s.p("ok then polars with scan_ndjson and sink_parquet, streaming, no pandas in the hot path anymore")
    s.fact("decision_reversal", ["sink_parquet"])
    t.write(
        "etl/transform_polars.py",
        "import polars as pl\n\ndef transform(src: str, dst: str) -> None:\n    pl.scan_ndjson(src).with_columns(pl.col('ts').str.to_datetime()).sink_parquet(dst)",
    )
    s.fact("file", ["etl/transform_polars.py"], by="agent")
    t.say("New streaming transform in `etl/transform_polars.py`.")
    s.fill(10)
    t.say(
        "For the lake layout I suggest Hive-style partitions `event_date=YYYY-MM-DD/` with files of ~256 MB and zstd compression. Shall I?"
    )
    s.p("go ahead")
    s.fact("decision_accepted", ["zstd compression"], by="agent")
    t.edit(
        "etl/transform_polars.py",
        "sink_parquet(dst)",
        "sink_parquet(dst, compression='zstd', row_group_size=1_000_000)",
    )
    t.say("Done.")
    s.fill(10)
    s.p(
        "how long do we keep the raw jsonl in the landing bucket after the parquet is written? ask data governance"
    )
    s.fact(
        "question_open",
        ["keep the raw jsonl in the landing bucket"],
        status="answered",
        stale="how long do we keep the raw jsonl in the landing bucket",
    )
    t.say("I won't delete anything from landing until we know.")
    s.fill(10)
    s.p(
        "so i was on a call with the analytics folks and they explained how they use the table. they query mostly "
        "by event_date and country, sometimes by app_version. they said whatever we do the column names must stay "
        "snake_case exactly as today because hundreds of looker views depend on them, renaming even one breaks "
        "dashboards in ways nobody notices for weeks. they also would like a _loaded_at column but thats optional"
    )
    s.fact("constraint_indirect", ["column names must stay snake_case"])
    t.say("Column names stay exactly as they are; `_loaded_at` added as an extra.")
    s.fill(10)
    s.remember(
        "backfill 2026-10-01..2026-11-09 only after the dag runs green 3 nights in a row",
        ["green 3 nights in a row"],
    )
    s.p("governance says 30 days in landing then lifecycle rule deletes it")
    s.fact("answer", ["30 days in landing"])
    t.say("I'll add an S3 lifecycle rule for 30 days on the landing prefix.")
    s.fill(10)
    s.p("full test run")
    passing = "\n".join(f"tests/unit/test_schema_{n:02d}.py ....  [{n + 1:>3}%]" for n in range(30))
    t.bash(
        "pytest -q",
        passing + "\n\n=================================== FAILURES ===================================\n"
        "_____________________ test_partition_path_uses_event_date ______________________\n\n"
        "    def test_partition_path_uses_event_date(tmp_path):\n>       assert out == tmp_path / 'event_date=2026-11-09'\nE       AssertionError: assert PosixPath('/tmp/pytest-7/event_date=2026-11-09 00:00:00') == PosixPath('/tmp/pytest-7/event_date=2026-11-09')\n\n"
        "tests/integration/test_load.py:33: AssertionError\n=========================== short test summary info ============================\n"
        "FAILED tests/integration/test_load.py::test_partition_path_uses_event_date - AssertionError\n1 failed, 131 passed in 9.41s",
        error=True,
    )
    s.fact("failing_test", ["test_partition_path_uses_event_date"], by="tool")
    t.say(
        "One integration test fails on the partition path format. I'll cast the column to date before partitioning."
    )
    s.fill(10)
    s.p(
        "should we also emit a _SUCCESS marker for the downstream spark jobs? i dont know if they still read it"
    )
    s.fact("question_open", ["_SUCCESS marker"])
    t.say("Open, I'll leave it out for now.")
    s.fill(10)
    s.p("commit")
    t.bash(
        "git commit -am 'etl: streaming polars transform to partitioned parquet'",
        "[parquet-lake 2a4c6e8] etl: streaming polars transform to partitioned parquet\n 5 files changed, 188 insertions(+), 61 deletions(-)",
    )
    t.say("Committed.")
    s.fill(10)
    s.p("final step for today: delete the old etl/load_csv.py and its tests, nothing imports it anymore")
    s.fact("last_instruction", ["delete the old etl/load_csv.py"])
    t.grep("load_csv", ["etl/load_csv.py", "tests/unit/test_load_csv.py"])
    t.bash(
        "git rm etl/load_csv.py tests/unit/test_load_csv.py",
        "rm 'etl/load_csv.py'\nrm 'tests/unit/test_load_csv.py'",
    )
    t.say("Removed both files.")

    s.d("the sessions dag is late every monday")
    s.decoy.say("It waits on a sensor with a 6 hour timeout.")
    s.d("switch the sensor to reschedule mode with poke_interval 600")
    s.decoy_fact(["poke_interval 600"])
    s.decoy.say("Done.")
    s.write(
        "Primary Request: events_daily writes partitioned Parquet. Done: polars streaming transform, zstd. Pending: remove load_csv."
    )


def infra_tf() -> None:
    s = Session(
        "infra_tf",
        "Terraform infra",
        "platform-infra",
        88,
        [
            routine("fmt", "terraform fmt -check -recursive", "", "Formatting is fine."),
            routine(
                "validate",
                "terraform -chdir=envs/staging validate",
                "Success! The configuration is valid.",
                "Valid.",
            ),
            routine(
                "plan staging",
                "terraform -chdir=envs/staging plan -no-color | tail -2",
                "Plan: 3 to add, 1 to change, 0 to destroy.",
                "Plan: 3 to add, 1 to change.",
            ),
        ],
    )
    t = s.t
    s.p(
        "we move the staging eks node groups from managed node groups to karpenter. modules/eks, envs/staging"
    )
    s.fact("clear", ["to karpenter"])
    t.read(
        "modules/eks/nodes.tf",
        'resource "aws_eks_node_group" "default" {\n  cluster_name    = var.cluster_name\n  instance_types  = ["m6i.xlarge"]\n  scaling_config {\n    desired_size = 4',
    )
    t.say("One managed node group of m6i.xlarge. I'll add Karpenter's controller and a NodePool.")
    s.fill(3)
    s.p("Never run terraform apply yourself. Plan only, I apply.")
    s.fact("constraint_direct", ["never run terraform apply yourself"])
    t.say("Plan only.")
    s.fill(3)
    s.p("install karpenter with the helm provider from terraform")
    s.fact(
        "decision_reversal",
        ["helm provider from terraform"],
        status="superseded",
        stale="install karpenter with the helm provider from terraform",
    )
    t.say("OK, a `helm_release` in the module.")
    s.fill(3)
    t.say(
        "For interruption handling I suggest an SQS queue fed by EventBridge rules for spot interruption and rebalance events, which Karpenter polls. Want that in this change?"
    )
    s.p("yes pls")
    s.fact("decision_accepted", ["EventBridge rules for spot interruption"], by="agent")
    t.write(
        "modules/eks/karpenter_interruption.tf",
        'resource "aws_sqs_queue" "karpenter_interruption" {\n  name                      = "${var.cluster_name}-karpenter"\n  message_retention_seconds = 300\n}',
    )
    s.fact("file", ["karpenter_interruption.tf"], by="agent")
    t.say("Added the queue and rules.")
    s.fill(3)
    s.p(
        "for the nodepool: \n1) spot and on-demand both allowed\n2) only graviton, arm64 only pls, we rebuilt all images last quarter\n3) consolidation on but not during business hours"
    )
    s.fact("constraint_indirect", ["arm64 only"])
    t.say("Spot + on-demand, arm64 only, consolidation budget outside business hours.")
    s.p("what is the max node count we want? i have to check the budget with Jonas")
    s.fact("question_open", ["max node count"], status="answered", stale="what is the max node count we want")
    t.say("I'll put a variable with no default.")
    s.fill(3)
    s.p(
        "helm from terraform was a mistake last time, the state got stuck. karpenter goes through argocd like every other addon, terraform only does IAM and the queue"
    )
    s.fact("decision_reversal", ["goes through argocd"])
    t.edit(
        "modules/eks/karpenter.tf",
        'resource "helm_release" "karpenter"',
        "# installed by Argo CD (apps/karpenter)",
    )
    t.say("Removed the helm_release; Terraform keeps IAM and the queue.")
    s.p("Jonas ok'd a limit of 64 vCPU... no, 96 vCPU for staging")
    s.fact("answer", ["96 vCPU"])
    t.say("Limit set to 96 vCPU.")
    s.remember("staging karpenter rollout window is tuesday 10:00 CET", ["tuesday 10:00 CET"])
    s.p("run the terratest")
    t.bash(
        "cd test && go test -run TestEKS -timeout 30m ./...",
        "TestEKSKarpenterIAM 2026-11-14T10:02:11Z logger.go:66: Running command terraform with args [init -upgrade=false]\n--- FAIL: TestEKSKarpenterIAM (41.20s)\n    eks_test.go:58: \n        \tError Trace:\t/src/test/eks_test.go:58\n        \tError:      \tShould be true\n        \tMessages:   \tkarpenter role missing iam:PassRole on node role\nFAIL\nFAIL\tgithub.com/acme/platform-infra/test\t41.388s\nFAIL",
        error=True,
    )
    s.fact("failing_test", ["TestEKSKarpenterIAM"], by="tool")
    t.say("The IAM test fails on a missing permission. I'll look at the controller policy.")
    s.p("do we keep the old node group as a fallback for a week or remove it in the same PR? open")
    s.fact("question_open", ["keep the old node group as a fallback"])
    t.say("Open.")
    s.fill(3)
    s.p(
        "ok, last: write the argocd Application manifest for karpenter in apps/karpenter/application.yaml, chart 1.1.x"
    )
    s.fact("last_instruction", ["apps/karpenter/application.yaml"])
    t.say("Writing it.")

    s.d("cloudfront logs bucket is public, fix")
    s.decoy.say("The bucket ACL grants `AllUsers` read.")
    s.d("enable BucketOwnerEnforced object ownership")
    s.decoy_fact(["BucketOwnerEnforced"])
    s.decoy.say("Done.")
    s.write("Primary Request: staging EKS to Karpenter. Pending: Argo CD application.")


def android_app() -> None:
    s = Session(
        "android_app",
        "Kotlin Android (gradle/JUnit)",
        "rider-app",
        99,
        [
            routine("assemble debug", "./gradlew :app:assembleDebug -q", "", "Debug build OK."),
            routine("ktlint", "./gradlew ktlintCheck", "BUILD SUCCESSFUL in 6s", "ktlint clean."),
            looked(
                "open the trip repository",
                "app/src/main/java/com/acme/rider/trips/TripRepository.kt",
                "class TripRepository(private val api: TripApi, private val dao: TripDao) {\n    fun trips(): Flow<List<Trip>> = dao.observeAll()",
                "Trips come from Room; the API refreshes them.",
            ),
            routine(
                "unit tests of trips",
                "./gradlew :app:testDebugUnitTest --tests '*Trip*'",
                "BUILD SUCCESSFUL in 21s",
                "Trip tests pass.",
            ),
        ],
    )
    t = s.t
    s.p("we need offline mode for the trip history screen in the rider app. kotlin, compose, room")
    s.fact("clear", ["offline mode for the trip history"])
    t.read(
        "app/src/main/java/com/acme/rider/trips/TripRepository.kt",
        "class TripRepository(private val api: TripApi, private val dao: TripDao) {",
    )
    t.say("The repository already caches in Room but the screen calls the API directly.")
    s.fill(4)
    s.p("minSdk stays 26. Don't bump it.")
    s.fact("constraint_direct", ["minsdk stays 26"])
    t.say("minSdk 26.")
    s.fill(4)
    s.p("sync with WorkManager periodic every 15 min")
    s.fact(
        "decision_reversal",
        ["periodic every 15 min"],
        status="superseded",
        stale="sync with WorkManager periodic every 15 min",
    )
    t.say("OK.")
    s.fill(4)
    s.p(
        "crash from play console:\n\n```\nFatal Exception: java.lang.IllegalStateException: Cannot access database on the main thread since it may potentially lock the UI for a long period of time.\n       at androidx.room.RoomDatabase.assertNotMainThread(RoomDatabase.kt:480)\n       at com.acme.rider.trips.TripDao_Impl.count(TripDao_Impl.java:212)\n       at com.acme.rider.trips.TripHistoryViewModel.<init>(TripHistoryViewModel.kt:31)\n```"
    )
    t.say(
        "`TripHistoryViewModel` calls `dao.count()` in its constructor on the main thread. I'll move it into a coroutine."
    )
    s.fill(4)
    t.say(
        "I suggest the screen observes `TripRepository.trips()` as the single source of truth and a pull-to-refresh triggers a one-shot sync; the UI never calls the API. OK?"
    )
    s.p("ok 👍")
    s.fact("decision_accepted", ["single source of truth"], by="agent")
    t.edit(
        "app/src/main/java/com/acme/rider/trips/TripHistoryViewModel.kt",
        "api.trips()",
        "repo.trips().stateIn(viewModelScope, SharingStarted.WhileSubscribed(5_000), emptyList())",
    )
    s.fact("file", ["TripHistoryViewModel.kt"], by="agent")
    t.say("Done.")
    s.fill(4)
    s.p(
        "periodic sync drains battery, QA measured it. only sync when app comes to foreground and on pull to refresh"
    )
    s.fact("decision_reversal", ["when app comes to foreground"])
    t.say("Removed the periodic worker; sync on foreground and pull-to-refresh.")
    s.fill(3)
    s.p("how many trips do we keep offline? all of them could be thousands. product decide")
    s.fact(
        "question_open",
        ["how many trips do we keep offline"],
        status="answered",
        stale="how many trips do we keep offline",
    )
    t.say("Waiting for product.")
    s.fill(4)
    s.p(
        "reminder of our rules for this app since its the first time you work on it: strings go in strings.xml "
        "translated by the agency, so no hardcoded text in composables. analytics events need the privacy review "
        "before adding new ones. and dark mode must work on every screen"
    )
    s.fact("constraint_indirect", ["no hardcoded text in composables"])
    t.say("Understood.")
    s.fill(3)
    s.p("product: keep the last 90 days offline, older ones load from network when online")
    s.fact("answer", ["last 90 days offline"])
    t.say("Room keeps 90 days; older pages come from the API.")
    s.remember("release 5.12 freezes on the 20th", ["release 5.12 freezes"])
    s.p("run the unit tests")
    t.bash(
        "./gradlew :app:testDebugUnitTest",
        "> Task :app:testDebugUnitTest\n\ncom.acme.rider.trips.TripHistoryViewModelTest > showsCachedTripsWhenOffline FAILED\n    java.lang.AssertionError: expected:<3> but was:<0>\n        at org.junit.Assert.fail(Assert.java:89)\n        at com.acme.rider.trips.TripHistoryViewModelTest.showsCachedTripsWhenOffline(TripHistoryViewModelTest.kt:77)\n\n57 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':app:testDebugUnitTest'.\n> There were failing tests. See the report at: file:///src/rider/app/build/reports/tests/testDebugUnitTest/index.html\n\nBUILD FAILED in 38s",
        error=True,
    )
    s.fact("failing_test", ["showsCachedTripsWhenOffline"], by="tool")
    t.say("One view-model test fails; probably the test dispatcher. Looking at it after the UI.")
    s.p("do we show a banner when offline or just a small icon? designer is on vacation")
    s.fact("question_open", ["banner when offline or just a small icon"])
    t.say("Open until the designer is back.")
    s.fill(3)
    s.p("now add the 'last synced' timestamp under the toolbar, using DateUtils.getRelativeTimeSpanString")
    s.fact("last_instruction", ["getRelativeTimeSpanString"])
    t.say("Adding it.")

    s.d("deep links to promo codes don't open the app on android 12")
    s.decoy.say(
        "The intent filter lacks `android:autoVerify` and assetlinks.json is missing the new signing key."
    )
    s.d("add the upload key sha256 to assetlinks.json")
    s.decoy_fact(["upload key sha256"])
    s.decoy.say("Added.")
    s.write("Primary Request: offline trip history. Pending: last synced timestamp.")


def node_api() -> None:
    s = Session(
        "node_api",
        "TypeScript API (jest)",
        "notify-api",
        111,
        [
            routine("tsc", "npx tsc -p . --noEmit", "", "Types OK."),
            routine("lint it", "npx eslint src", "", "ESLint clean."),
            looked(
                "what does the service send",
                "src/services/notify.ts",
                "export async function send(n: NotificationInput) {\n  const channel = pickChannel(n)\n  return channel.deliver(n)",
                "It picks a channel (email, sms, push) and delivers.",
            ),
        ],
    )
    t = s.t
    s.p("add rate limiting to POST /v1/notifications in notify-api, express + typescript")
    s.fact("clear", ["rate limiting to POST /v1/notifications"])
    t.read(
        "src/routes/notifications.ts",
        "router.post('/v1/notifications', auth, async (req, res) => {\n  const n = await service.send(req.body)",
    )
    t.say("The route has auth but no limiter.")
    s.p("limit per api key, not per IP, customers sit behind NAT")
    s.fact("constraint_direct", ["per api key, not per IP"])
    t.say("Keyed by API key.")
    s.fill(3)
    s.p("100 requests per minute")
    s.fact(
        "decision_reversal", ["100 requests per minute"], status="superseded", stale="100 requests per minute"
    )
    t.say("OK.")
    t.say(
        "I'd use a sliding window in Redis with a Lua script (atomic INCR + PEXPIRE), and answer 429 with `Retry-After`. Fine?"
    )
    s.p("yes")
    s.fact("decision_accepted", ["Lua script"], by="agent")
    t.write(
        "src/middleware/rateLimit.ts",
        "export function rateLimit(opts: { perMinute: number }) {\n  return async (req, res, next) => {",
    )
    s.fact("file", ["src/middleware/rateLimit.ts"], by="agent")
    t.say("Middleware written.")
    s.fill(5)
    s.p("is the limit shared across regions? we have eu and us redis")
    s.fact(
        "question_open",
        ["shared across regions"],
        status="answered",
        stale="is the limit shared across regions",
    )
    t.say("Per region for now unless you want otherwise.")
    s.p("the big customer complained already. 600 per minute, with burst 50")
    s.fact("decision_reversal", ["600 per minute"])
    t.edit("src/middleware/rateLimit.ts", "perMinute: 100", "perMinute: 600, burst: 50")
    t.say("600/min with a burst of 50.")
    s.p("per region is fine, the keys are region bound anyway")
    s.fact("answer", ["keys are region bound"])
    t.say("Per region.")
    s.p(
        'some headers from the customer request for you to see\n```json\n{"x-api-key": "pk_live_...redacted", "x-forwarded-for": "203.0.113.7, 10.2.0.4", "user-agent": "acme-sdk-node/3.2.0"}\n```\nand also: the 429 body has to follow our error format {code, message, docs_url}'
    )
    s.fact("constraint_indirect", ["{code, message, docs_url}"])
    t.say("429 body will use `{code, message, docs_url}`.")
    s.remember("announce the new limits in the changelog before deploy", ["changelog before deploy"])
    s.p("jest")
    t.bash(
        "npx jest",
        "PASS src/routes/health.test.ts\nFAIL src/middleware/rateLimit.test.ts\n  ● rateLimit › resets the window after 60 seconds\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 200\n    Received: 429\n\n      41 |     jest.advanceTimersByTime(60_000)\n    > 42 |     expect(res.status).toBe(200)\n\nTest Suites: 1 failed, 1 passed, 2 total\nTests:       1 failed, 8 passed, 9 total",
        error=True,
    )
    s.fact("failing_test", ["resets the window after 60 seconds"], by="tool")
    t.say("One limiter test fails with fake timers; Redis TTL doesn't follow jest's clock. Next.")
    s.p("should internal services bypass the limiter? no idea, ask platform later")
    s.fact("question_open", ["internal services bypass the limiter"])
    t.say("Open.")
    s.fill(4)
    s.p("last: expose X-RateLimit-Remaining header on every response")
    s.fact("last_instruction", ["X-RateLimit-Remaining"])
    t.say("Adding the header.")

    s.d("webhook retries hammer customers when they are down")
    s.decoy.say("Retries are immediate, 10 times.")
    s.d("exponential backoff capped at 6 hours, max 12 attempts")
    s.decoy_fact(["capped at 6 hours"])
    s.decoy.say("Done.")
    s.write("Primary Request: rate limit POST /v1/notifications. Pending: X-RateLimit-Remaining.")


def ml_train() -> None:
    s = Session(
        "ml_train",
        "Python ML training (pytest)",
        "ranker",
        122,
        [
            routine(
                "quick unit tests",
                "pytest tests/unit -q -x",
                "........................................................ [100%]\n56 passed in 4.02s",
                "Units pass.",
            ),
            looked(
                "show the config",
                "configs/ranker_base.yaml",
                "model:\n  hidden: 512\n  layers: 4\ntrain:\n  lr: 3.0e-4\n  batch_size: 256\n  epochs: 10",
                "Base config: 4 layers of 512, lr 3e-4, batch 256, 10 epochs.",
            ),
            routine(
                "gpu status",
                "nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv",
                "name, memory.used [MiB], memory.total [MiB]\nNVIDIA A10G, 18211 MiB, 23028 MiB",
                "One A10G, 18 GB of 23 GB used.",
            ),
            routine(
                "tail the training log",
                "tail -3 runs/latest/train.log",
                "epoch 3 step 1200 loss 0.4121 ndcg@10 0.611\nepoch 3 step 1300 loss 0.4098 ndcg@10 0.613\nepoch 3 step 1400 loss 0.4077 ndcg@10 0.614",
                "Loss still going down, NDCG@10 at 0.614.",
            ),
            routine("ruff format check", "ruff format --check .", "47 files already formatted", "Formatted."),
            routine(
                "check disk",
                "df -h /data | tail -1",
                "/dev/nvme1n1    1.8T  1.1T  700G  62% /data",
                "700 GB free on /data.",
            ),
        ],
    )
    t = s.t
    s.p(
        "goal of this session: train the search ranker with the new click features and compare against prod model. repo ranker/, training entry train.py"
    )
    s.fact("clear", ["new click features"])
    t.read(
        "train.py",
        "def main(cfg: Config) -> None:\n    ds = load_dataset(cfg.data)\n    model = Ranker(cfg.model)\n    fit(model, ds, cfg.train)",
    )
    t.say("A plain training loop over a config. I'll add the click features to the dataset first.")
    s.fill(10)
    s.p("Evaluation must use the frozen holdout set data/holdout_2026_10, never resample it.")
    s.fact("constraint_direct", ["never resample it"])
    t.say("The holdout stays frozen.")
    s.fill(12)
    s.p("loss: use pairwise ranknet loss")
    s.fact(
        "decision_reversal", ["pairwise ranknet loss"], status="superseded", stale="use pairwise ranknet loss"
    )
    t.say("RankNet pairwise loss.")
    s.fill(12)
    t.task(
        "Survey click feature leakage",
        "Check whether any of the new click features are computed with data from after the query timestamp.",
        "Findings: `ctr_7d` and `dwell_mean_7d` are computed from a window that ends at the snapshot date, not at query time, so for holdout queries they include future clicks. `pos_bias_est` is fine. Recommendation: recompute the two 7d features with an as-of join on query_ts.",
    )
    t.say(
        "The sub-agent found leakage in two of the click features. I suggest recomputing `ctr_7d` and `dwell_mean_7d` with an as-of join on the query timestamp before any training run. Do it?"
    )
    s.p("yes obviously")
    s.fact("decision_accepted", ["as-of join"], by="agent")
    t.write(
        "features/click_asof.py",
        "def click_features_asof(queries: pl.LazyFrame, clicks: pl.LazyFrame) -> pl.LazyFrame:\n    return queries.join_asof(clicks, left_on='query_ts', right_on='ts', by='doc_id')",
    )
    s.fact("file", ["features/click_asof.py"], by="agent")
    t.say("Added `features/click_asof.py`.")
    s.fill(12)
    s.p("what was the prod model's ndcg@10 on the holdout? I don't remember, it's in some old mlflow run")
    s.fact(
        "question_open",
        ["prod model's ndcg@10"],
        status="answered",
        stale="what was the prod model's ndcg@10 on the holdout",
    )
    t.say("I'll need the MLflow run id.")
    s.fill(12)
    s.p(
        "ok listen, few practical things. the gpu box is shared with the speech team so we only get the A10G at night, "
        "between 20:00 and 07:00, during the day only cpu smoke tests. also every run has to be logged to mlflow "
        "experiment ranker-v5 with the git sha as a tag, otherwise the review board wont look at the results. "
        "thats it i think"
    )
    s.fact("constraint_indirect", ["between 20:00 and 07:00"])
    s.fact("constraint_indirect", ["experiment ranker-v5"])
    t.say("Night-only GPU, MLflow experiment `ranker-v5` with the git sha tag.")
    s.fill(12)
    s.p(
        "ranknet overfits on the head queries, the curves look bad. switch the loss to lambdarank with ndcg@10 as the metric it optimizes"
    )
    s.fact("decision_reversal", ["lambdarank"])
    t.edit("train.py", "loss = RankNetLoss()", "loss = LambdaRankLoss(k=10)")
    t.say("Switched to LambdaRank at k=10.")
    s.fill(12)
    s.p("found it, prod model is 0.642 ndcg@10 on holdout_2026_10, run id 7be1c0")
    s.fact("answer", ["0.642 ndcg@10"])
    t.say("Baseline to beat: 0.642.")
    s.fill(12)
    s.remember(
        "do not publish results before the leakage fix is merged", ["before the leakage fix is merged"]
    )
    s.p("run the full tests incl slow ones")
    slow = "\n".join(f"tests/test_metrics_{n:02d}.py ...." for n in range(35))
    t.bash(
        "pytest -q --runslow",
        slow
        + "\n=================================== FAILURES ===================================\n___________________ test_asof_join_excludes_future_clicks ____________________\n\n>       assert feats['ctr_7d'][0] == pytest.approx(0.25)\nE       assert 0.3125 == 0.25 ± 2.5e-07\n\ntests/test_click_asof.py:48: AssertionError\n=========================== short test summary info ============================\nFAILED tests/test_click_asof.py::test_asof_join_excludes_future_clicks - assert 0.3125 == 0.25 ± 2.5e-07\n1 failed, 142 passed, 3 skipped in 61.20s (0:01:01)",
        error=True,
    )
    s.fact("failing_test", ["test_asof_join_excludes_future_clicks"], by="tool")
    t.say(
        "One failure in the new feature code; the join's strategy is probably backward vs forward. I'll check after this run's setup."
    )
    s.fill(12)
    s.p("do we need calibration of the scores for the ads blend or is rank enough? ask ads team someday")
    s.fact("question_open", ["calibration of the scores for the ads blend"])
    t.say("Open.")
    s.fill(12)
    s.p("commit")
    t.bash(
        "git commit -am 'ranker: as-of click features, lambdarank'",
        "[ranker-v5 5f0e9d1] ranker: as-of click features, lambdarank\n 6 files changed, 201 insertions(+), 33 deletions(-)",
    )
    t.say("Committed.")
    s.fill(8)
    s.p(
        "tonight's run: queue configs/ranker_v5_lambdarank.yaml with 3 seeds via the night scheduler, then stop"
    )
    s.fact("last_instruction", ["ranker_v5_lambdarank.yaml with 3 seeds"])
    t.say("Queuing the three seeds.")

    s.d("the embedding export job writes float64, halve it")
    s.decoy.say("Casting to float16 would lose too much; float32 is safe.")
    s.d("ok float32 and write them as safetensors")
    s.decoy_fact(["as safetensors"])
    s.decoy.say("Done.")
    s.write(
        "Primary Request: ranker with click features vs prod. Done: as-of features, lambdarank. Pending: night run with 3 seeds."
    )


def firmware() -> None:
    s = Session(
        "firmware",
        "Rust embedded firmware (cargo test)",
        "thermo-fw",
        133,
        [
            routine(
                "build for the board",
                "cargo build --release --target thumbv7em-none-eabihf",
                "    Finished `release` profile [optimized] target(s) in 12.40s",
                "Release build OK.",
            ),
            routine(
                "size",
                "cargo size --release -- -A | head -4",
                "thermo-fw  :\nsection      size        addr\n.vector_table  1024   0x8000000\n.text         61824   0x8000400",
                "Text is ~60 KB.",
            ),
            looked(
                "show the sensor driver",
                "src/sensor/sht4x.rs",
                "pub struct Sht4x<I2C> {\n    i2c: I2C,\n    addr: u8,\n}\nimpl<I2C: I2c> Sht4x<I2C> {\n    pub fn measure(&mut self) -> Result<Reading, Error> {",
                "A blocking SHT4x driver over embedded-hal's I2c.",
            ),
        ],
    )
    t = s.t
    s.p(
        "make the thermostat firmware read the sht4x async with embassy instead of the blocking loop. src/main.rs, src/sensor/"
    )
    s.fact("clear", ["sht4x async with embassy"])
    t.read(
        "src/main.rs",
        "#[entry]\nfn main() -> ! {\n    loop {\n        let r = sensor.measure().unwrap();\n        delay.delay_ms(1000);\n    }\n}",
    )
    t.say("A blocking loop with `unwrap`. Moving to embassy tasks.")
    s.fill(3)
    s.p("No heap. no alloc crate, nothing.")
    s.fact("constraint_direct", ["no alloc crate"])
    t.say("No heap allocations.")
    s.fill(3)
    s.p("sample every 2 seconds")
    s.fact(
        "decision_reversal", ["sample every 2 seconds"], status="superseded", stale="sample every 2 seconds"
    )
    t.say("2 s.")
    t.say(
        "For sharing readings between the sensor task and the control task I propose an `embassy_sync::watch::Watch` (latest value wins, no queue). OK?"
    )
    s.p("ok")
    s.fact("decision_accepted", ["embassy_sync::watch::Watch"], by="agent")
    t.write(
        "src/tasks/sensor.rs",
        "#[embassy_executor::task]\npub async fn sensor_task(mut s: Sht4x<I2c<'static, Async>>, tx: Sender<'static, Reading>) {",
    )
    s.fact("file", ["src/tasks/sensor.rs"], by="agent")
    t.say("Sensor task added.")
    s.fill(3)
    s.p("what i2c speed does the board revision C support? I have to look in the schematic")
    s.fact(
        "question_open",
        ["board revision C"],
        status="answered",
        stale="what i2c speed does the board revision C support",
    )
    t.say("I'll keep 100 kHz until then.")
    s.p(
        "and pls remember flash is almost full, we have like 4kb left on the F401, "
        "so no defmt-rtt in release build and no float formatting in logs"
    )
    s.fact("constraint_indirect", ["no float formatting in logs"])
    t.say("No float formatting, defmt-rtt only in debug.")
    s.fill(2)
    s.p("every 2s is too often, the sensor self-heats. 10 seconds between samples")
    s.fact("decision_reversal", ["10 seconds between samples"])
    t.edit("src/tasks/sensor.rs", "Duration::from_secs(2)", "Duration::from_secs(10)")
    t.say("10 s now.")
    s.p("schematic says rev C has 2k2 pullups so 400 kHz fast mode is fine")
    s.fact("answer", ["400 kHz fast mode"])
    t.say("I2C at 400 kHz.")
    s.remember("rev B boards must keep working, 12 of them are in the field", ["12 of them are in the field"])
    s.p("cargo test on host")
    t.bash(
        "cargo test --target x86_64-unknown-linux-gnu --lib",
        "running 12 tests\ntest control::tests::hysteresis_off ... ok\ntest control::tests::hysteresis_on ... ok\ntest sensor::tests::crc8_known_vector ... ok\ntest sensor::tests::decode_negative_celsius ... FAILED\n\nfailures:\n\n---- sensor::tests::decode_negative_celsius stdout ----\nthread 'sensor::tests::decode_negative_celsius' panicked at src/sensor/sht4x.rs:141:9:\nassertion `left == right` failed\n  left: 6553\n right: -500\n\nfailures:\n    sensor::tests::decode_negative_celsius\n\ntest result: FAILED. 11 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
        error=True,
    )
    s.fact("failing_test", ["decode_negative_celsius"], by="tool")
    t.say("One decode test fails; a signedness issue in the conversion. After the control task.")
    s.p("should the display task also go async or stay on the blocking spi? later")
    s.fact("question_open", ["display task also go async"])
    t.say("Open.")
    s.fill(2)
    s.p("last: add a watchdog (IWDG, 4s timeout) fed from the control task only")
    s.fact("last_instruction", ["IWDG, 4s timeout"])
    t.say("Adding the watchdog.")

    s.d("the OTA update bricks boards when power drops mid flash")
    s.decoy.say("There's no A/B slot; the bootloader jumps into a half-written image.")
    s.d("use embassy-boot with the swap scheme and mark_booted after self test")
    s.decoy_fact(["mark_booted after self test"])
    s.decoy.say("Done.")
    s.write("Primary Request: async SHT4x with embassy. Pending: IWDG watchdog.")


ALL = (py_etl, infra_tf, android_app, node_api, ml_train, firmware)
