"""Tenants stay apart under concurrency, on the local stack over HTTP.

Two agents post their sessions at the same time (the same session ids, many threads: a prompt, a
digest, session-end) while a third agent's read-only token lists, reads and searches the same
project. Each agent must find exactly its own prompts, checkpoints and transcripts; the reader must
see nobody's; no valid request may be refused. This is the isolation matrix under load: it fails
when functions share one process (Powertools keeps the current event on a class shared by every
resolver of the process).
"""

from __future__ import annotations

import pytest

from tests.e2e.local_stack import Api
from tests.e2e.tenant_load import Load, run_load

pytestmark = pytest.mark.e2e


def test_concurrent_tenants_each_find_only_their_own_records(api: Api) -> None:
    # Given two writer agents and a read-only one, ten sessions each (the same ids)
    load = Load(tenants=2, sessions=10, prompts=1, writer_threads=8, reader_threads=2)

    # When the writers post concurrently while the reader lists, reads and searches the same project
    outcome = run_load(api.stack.url, api.stack.create_tenant, load)

    # Then every valid request was answered (no hook refused with 401)
    assert outcome.writes == 2 * 10 * 3  # a prompt, a digest and session-end per session
    assert outcome.writes_401 == 0
    assert outcome.failed == []
    # and the reader never saw a writer's words
    assert outcome.wrong_tenant_reads == []
    # and every prompt, digest, checkpoint and transcript is under its own agent, once, nowhere else
    assert outcome.wrong_tenant_records == []
    assert outcome.lost_or_doubled == []
