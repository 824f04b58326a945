"""Each function's composition root builds from what the wiring gives that function, once per
cold start (``continuity_core/roots``); nothing here reaches AWS (the adapters connect on first use).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from continuity_core.kernel.clock import Clock
from continuity_core.kernel.once import on_first_use
from continuity_core.roots.cold_start import ColdStart
from infra import wiring
from infra.local.environment import function_environment

WITH_ROOTS = [spec for spec in wiring.FUNCTIONS if spec.key != wiring.DASHBOARD.key]  # static files only


def declared_environment(spec: wiring.FunctionSpec) -> dict[str, str]:
    """What CDK gives ``spec``'s function (the local stack's rule), with made-up names."""
    resources: dict[str, dict[str, str]] = {}
    for table in wiring.TABLES:
        resources[table.key] = {table.env_var: "continuity-table"}
    for queue in wiring.QUEUES:
        resources[queue.key] = {queue.env_var: "https://sqs.local/queue"}
        if queue.dlq_env_var:
            resources[wiring.dlq_resource(queue.key)] = {queue.dlq_env_var: "https://sqs.local/dlq"}
    for bucket in wiring.BUCKETS:
        resources[bucket.key] = {bucket.env_var: "continuity-bucket"}
    extra = {wiring.API_TOKEN_ENV_VAR: "0" * 64} if spec.key == wiring.AUTHORIZER.key else None
    return function_environment(
        spec, config={}, resources=resources, extra=extra, endpoint_url="http://127.0.0.1:9"
    )


@pytest.mark.parametrize("spec", WITH_ROOTS, ids=lambda spec: spec.key)
def test_a_root_builds_from_its_own_functions_environment_alone(spec: wiring.FunctionSpec) -> None:
    root = importlib.import_module(f"continuity_core.roots.{spec.key}")
    built = root.build(declared_environment(spec), lambda: datetime(2026, 1, 1, tzinfo=UTC))
    assert built is not None


def test_the_hooks_root_refuses_an_environment_without_its_queue() -> None:
    from continuity_core.roots import hooks

    env = {
        k: v for k, v in declared_environment(wiring.HOOKS).items() if k != wiring.CHECKPOINT_QUEUE.env_var
    }
    with pytest.raises(RuntimeError, match=wiring.CHECKPOINT_QUEUE.env_var):
        hooks.build(env, lambda: datetime(2026, 1, 1, tzinfo=UTC))


@dataclass(frozen=True)
class Built:
    clock: Clock
    index: Index


class Index:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_a_cold_start_builds_once_and_again_after_a_reset_with_the_clock_given() -> None:
    builds: list[Mapping[str, str]] = []

    def build(env: Mapping[str, str], clock: Clock) -> Built:
        builds.append(env)
        return Built(clock, Index())

    deps = ColdStart(build)
    first = deps()
    assert deps() is first and len(builds) == 1
    fixed = datetime(2030, 1, 1, tzinfo=UTC)
    deps.reset(lambda: fixed)
    assert first.index.closed  # the in-memory part of the build let go is closed
    assert deps() is not first and deps().clock() == fixed and len(builds) == 2


def test_concurrent_first_invocations_build_once() -> None:
    started = threading.Barrier(8)
    count: list[int] = []

    def build(env: Mapping[str, str], clock: Clock) -> Built:
        count.append(1)
        return Built(clock, Index())

    deps = ColdStart(build)
    seen: list[Built] = []

    def invoke() -> None:
        started.wait()
        seen.append(deps())

    threads = [threading.Thread(target=invoke) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(count) == 1 and all(found is seen[0] for found in seen)


def test_a_part_wired_on_first_use_is_built_by_its_first_call_and_only_once() -> None:
    builds: list[Index] = []

    def build() -> Index:
        builds.append(Index())
        return builds[-1]

    index = on_first_use(build)
    assert builds == []  # wired, not built: a cold start that never uses it does not pay for it

    index.close()
    index.close()

    assert len(builds) == 1 and builds[0].closed
