"""The local stack assembled from the wiring: moto, provisioning, gateway, pollers, timer."""

from __future__ import annotations

import fcntl
import functools
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import boto3

from infra import wiring
from infra.local import access_guard, access_policies
from infra.local.authorization import AuthorizerGate
from infra.local.backend import MotoBackend
from infra.local.environment import (
    LOCAL_ENDPOINT_FILE,
    ensure_import_paths,
    ensure_port_free,
    ensure_private_dir,
    function_environment,
    token_sha256,
    use_fake_aws,
)
from infra.local.faults import NO_FAULTS, Faults, install_in_worker
from infra.local.gateway import Gateway, GatewayServer
from infra.local.poller import QueuePoller
from infra.local.provision import Provisioned, provision
from infra.local.recording import DRAIN_MARKS_FILE, RECORDING_FILE, DrainMarks, compact, wipe
from infra.local.routes import RouteTable
from infra.local.runtime import Loader, import_handler
from infra.local.scheduler import Scheduler
from infra.local.worker import WorkerSetup
from infra.local.workers import FunctionRuntime, start_fork_server
from infra.wiring import AuthorizerSpec, BucketSpec, FunctionSpec, QueueSpec, TableSpec

log = logging.getLogger(__name__)


class AlreadyRunningError(RuntimeError):
    pass


def _load_access() -> access_policies.StackAccess:
    try:
        return access_policies.load()
    except Exception as error:  # jsii and node raise their own kinds; all mean the same here
        raise RuntimeError(
            f"cannot read the functions' IAM policies from a CDK synth ({type(error).__name__}: {error}); "
            "start with --no-access-guard to run without checking them"
        ) from error


@dataclass(frozen=True)
class StackOptions:
    token: str
    data_dir: Path | None  # None: nothing persists
    fresh: bool = False  # delete the recorded data first (after taking the data dir's lock)
    host: str = "127.0.0.1"
    port: int = 8787
    moto_port: int = 0
    functions: tuple[FunctionSpec, ...] = wiring.FUNCTIONS
    tables: tuple[TableSpec, ...] = wiring.TABLES
    queues: tuple[QueueSpec, ...] = wiring.QUEUES
    buckets: tuple[BucketSpec, ...] = wiring.BUCKETS
    authorizer: AuthorizerSpec | None = wiring.API_AUTHORIZER
    minute_seconds: float = 60.0  # timer scale: seconds per minute of ScheduleTrigger.rate_minutes
    retry_backoff_s: int = 2  # visibility of an SQS message left for redelivery
    # How a worker turns its FunctionSpec into a handler, and what it runs once before (e.g. a guard
    # on its AWS calls). Pickled to each worker: module-level functions only.
    loader: Loader = import_handler
    worker_setup: WorkerSetup | None = None
    # Each function's AWS calls checked against its role's policy as CDK synthesizes it.
    access_guard: bool = True
    # Faults injected on purpose (``infra.local.faults``); none by default.
    faults: Faults = NO_FAULTS


class LocalStack:
    def __init__(self, options: StackOptions) -> None:
        self.options = options
        self.url = ""
        self.moto_url = ""
        self.provisioned = Provisioned()
        self._lock_file: IO[str] | None = None
        self._backend: MotoBackend | None = None
        self._marks: DrainMarks | None = None
        self._server: GatewayServer | None = None
        self._scheduler: Scheduler | None = None
        self._pollers: list[QueuePoller] = []
        self.runtime: FunctionRuntime | None = None

    @property
    def recording(self) -> Path | None:
        return self.options.data_dir / RECORDING_FILE if self.options.data_dir else None

    def start(self) -> None:
        """Start everything; raises ConfigError, OSError (ports), AlreadyRunningError, RuntimeError."""
        opts = self.options
        ensure_import_paths()
        from continuity_core.kernel.config import load_config  # importable once the paths are set

        config = load_config()  # ConfigError names the bad variable
        ensure_port_free(opts.host, opts.port)
        use_fake_aws(None)
        try:
            self._start(config.to_environment())
        except BaseException:
            self.stop()
            raise

    def _start(self, config_env: dict[str, str]) -> None:
        opts = self.options
        start_fork_server()  # its imports overlap moto's start and the provisioning
        if opts.data_dir is not None:
            ensure_private_dir(opts.data_dir)
            self._lock(opts.data_dir)
            if opts.fresh:
                wipe(opts.data_dir)
            self._marks = DrainMarks(opts.data_dir / RECORDING_FILE, opts.data_dir / DRAIN_MARKS_FILE)
            self._compact()
            # moto appends to the file with the process umask; the prompts in it are private.
            os.close(os.open(opts.data_dir / RECORDING_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))

        # Policies first (a synth when the CDK sources changed), then hook botocore before any client
        # exists, so every session (the pollers' too) carries the check; it binds after provisioning.
        access = _load_access() if opts.access_guard else None
        access_guard.install(None)
        self._backend = MotoBackend(opts.host, opts.moto_port, self.recording)
        self.moto_url = self._backend.start()
        use_fake_aws(self.moto_url)
        if self.recording is not None and self.recording.stat().st_size:
            log.info("replaying %s", self.recording)
            self._backend.replay()

        sqs = boto3.client("sqs")
        dynamodb = boto3.client("dynamodb")
        self.provisioned = provision(
            dynamodb, sqs, opts.tables, opts.queues, s3=boto3.client("s3"), buckets=opts.buckets
        )
        worker_setup = opts.worker_setup
        if opts.faults.in_workers:
            worker_setup = functools.partial(install_in_worker, opts.faults, worker_setup)
        if opts.faults.any:
            log.warning("faults injected on purpose: %s", opts.faults.describe())
        if access is not None:
            names = access_guard.physical_names(self.provisioned.environment)
            # Here for the pollers' calls (they poll with the writer's role), in each worker for its
            # function's (a worker runs one function: every call of the process is checked as its).
            access_guard.install(access_guard.AccessGuard(access, names))
            worker_setup = functools.partial(access_guard.guard_worker, access, names, worker_setup)
            log.info("access guard on: %d functions under their synthesized grants", len(access.functions))
        self.runtime = FunctionRuntime(
            opts.functions,
            self._environments(config_env),
            loader=opts.loader,
            worker_setup=worker_setup,
        )
        # Cold starts in the background: a first request waits for its functions' only.
        threading.Thread(target=self._warm, args=(self.runtime,), name="warm", daemon=True).start()
        self._scheduler = Scheduler(opts.functions, self.runtime, minute_seconds=opts.minute_seconds)
        gate = AuthorizerGate(self.runtime, opts.authorizer) if opts.authorizer else None
        gateway = Gateway(
            self.runtime,
            RouteTable(opts.functions),
            gate,
            token_sha256=token_sha256(opts.token),
            scheduler=self._scheduler,
        )
        self._server = GatewayServer(gateway, opts.host, opts.port)
        self.url = self._server.url

        for spec in opts.functions:
            if spec.queue_trigger is None:
                continue
            poller = QueuePoller(
                spec,
                self.provisioned.queues[spec.queue_trigger.queue],
                self.runtime,
                sqs,
                retry_backoff_s=opts.retry_backoff_s,
                listener=self._marks,
                faults=opts.faults,
            )
            poller.start()
            self._pollers.append(poller)
        self._scheduler.start()
        self._server.start()
        if opts.data_dir is not None:  # for the operator (python -m infra.operator --local)
            (opts.data_dir / LOCAL_ENDPOINT_FILE).write_text(self.moto_url + "\n")

    def stop(self) -> None:
        """Stop in reverse order, then compact the recording. Safe to call more than once."""
        if self._server is not None:
            self._server.stop()
            self._server = None
            if self.options.data_dir is not None:
                (self.options.data_dir / LOCAL_ENDPOINT_FILE).unlink(missing_ok=True)
        if self._scheduler is not None:
            self._scheduler.stop()
            self._scheduler = None
        for poller in self._pollers:
            poller.stop()
        self._pollers.clear()
        if self.runtime is not None:
            self.runtime.close()
        access_guard.install(None)
        if self._backend is not None:
            self._backend.stop()
            self._backend = None
            self._compact()
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def _environments(self, config_env: dict[str, str]) -> dict[str, dict[str, str]]:
        """Each function's own environment, as CDK gives it (the token hash to the authorizer only)."""
        opts = self.options
        extra = (
            {opts.authorizer.function: {wiring.API_TOKEN_ENV_VAR: token_sha256(opts.token)}}
            if opts.authorizer
            else {}
        )
        return {
            spec.key: function_environment(
                spec,
                config=config_env,
                resources=self.provisioned.resource_environment,
                extra=extra.get(spec.key),
                endpoint_url=self.moto_url,
            )
            for spec in opts.functions
        }

    @staticmethod
    def _warm(runtime: FunctionRuntime) -> None:
        for key, error in runtime.warm().items():
            if not error.startswith("Runtime.Closed"):
                log.warning("function %s does not load yet (%s); its invocations will fail", key, error)

    def _compact(self) -> None:
        if self.recording is None or self._marks is None or not self.recording.exists():
            return
        result = compact(self.recording, self._marks.marks)
        self._marks.reset()
        log.info(
            "recording compacted: %d kept, %d reads and %d consumed sends dropped%s",
            result.kept,
            result.dropped_reads,
            result.dropped_sends,
            f", {result.unreadable} unreadable fragments skipped" if result.unreadable else "",
        )

    def _lock(self, data_dir: Path) -> None:
        handle = open(data_dir / "local.lock", "w")  # noqa: SIM115 - held open while running
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            handle.close()
            raise AlreadyRunningError(f"another local stack is using {data_dir}") from error
        self._lock_file = handle

    def __enter__(self) -> LocalStack:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
