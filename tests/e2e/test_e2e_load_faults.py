"""Nothing acknowledged is lost or stored twice under faults: a small fleet, one fault kind at a time.

A few agents (one through the real client CLI, with its spool) post sessions with live transcripts,
remembers, digests, compactions and sub-agents to the local stack while one fault hits it: the
stack SIGKILLed and restarted, SQS messages twice and late, DynamoDB/S3 throttling and 5xx, the
checkpoint writer crashing before its transaction, the network cutting connections. Then what the
service holds is compared with what was sent (``tests/e2e/fleet.py``; ``make bench`` runs a
bigger fleet through ``bench/bench_load.py``).
"""

from __future__ import annotations

import pytest

from tests.e2e.fleet import FAULTS, Fleet, run_fleet

pytestmark = pytest.mark.e2e

SMALL = Fleet(
    agents=3,
    cli_agents=1,
    prompts=16,  # a periodic checkpoint through the queue at 10, a compaction at 12
    sessions=1,
    remember_every=4,
    digest_every=16,
    compaction_every=12,
    subagent_every=8,
    stop_every=3,
    sqs_delay_s=4,
    writer_crash=0.5,
    network_cut_share=0.15,
)


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fleet_loses_nothing_under_one_fault(fault: str) -> None:
    # Given a small fleet of agents and the local stack, with one kind of fault
    # When the agents work through their sessions while it hits
    outcome = run_fleet(fault, SMALL)

    # Then the fault did happen (the stack logged it, the proxy cut, the stack was killed)
    assert fault == "none" or outcome.faults_injected > 0
    # and every hook was acknowledged (or spooled, then replayed) with no request refused
    assert outcome.hooks_acknowledged >= SMALL.agents * SMALL.prompts
    assert outcome.details == []
    # and nothing acknowledged is missing, no checkpoint is doubled, every transcript is as sent
    assert outcome.hooks_lost == 0
    assert outcome.checkpoints_duplicated == 0
    assert outcome.transcript_bytes_lost == 0


def test_prompts_pending_past_a_late_flush_keep_their_text() -> None:
    # Given an agent whose periodic checkpoint's queue message comes late (every first delivery
    # held back 15 s), so 30 prompts are pending when a checkpoint is written
    burst = Fleet(
        agents=1,
        cli_agents=0,
        prompts=30,
        sessions=1,
        digest_every=100,
        compaction_every=100,
        subagent_every=100,
        sqs_delay_share=1.0,
        sqs_delay_s=15,
    )

    # When it sends its 30 prompts and ends the session
    outcome = run_fleet("sqs", burst)

    # Then every prompt is still named in a checkpoint
    assert outcome.hooks_lost == 0, outcome.details
