"""The idle sweep in the synthesized stack: a 5-minute EventBridge rule, its index, least privilege."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from continuity_core.kernel import names
from infra import wiring

if TYPE_CHECKING:
    from tests.infra.synth import Synthesized


def _sweep_id(synthesized: Synthesized) -> str:
    return synthesized.logical_id(synthesized.stack.functions.functions[wiring.IDLE_SWEEP.key])


def _actions(synthesized: Synthesized) -> set[str]:
    role = synthesized.stack.functions.functions[wiring.IDLE_SWEEP.key].role
    assert role is not None
    role_id = synthesized.logical_id(role)
    found: set[str] = set()
    for policy in synthesized.resources("AWS::IAM::Policy").values():
        if {"Ref": role_id} in policy["Properties"]["Roles"]:
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
                action: Any = statement["Action"]
                found |= {action} if isinstance(action, str) else set(action)
    return found


def test_a_rule_runs_the_idle_sweep_every_five_minutes(synthesized: Synthesized) -> None:
    rules = synthesized.resources("AWS::Events::Rule").values()
    sweep = {"Fn::GetAtt": [_sweep_id(synthesized), "Arn"]}
    (rule,) = [r for r in rules if any(t["Arn"] == sweep for t in r["Properties"]["Targets"])]
    assert rule["Properties"]["ScheduleExpression"] == "rate(5 minutes)"
    assert rule["Properties"]["State"] == "ENABLED"


def test_the_table_has_the_sparse_idle_index_projecting_only_the_session_key(
    synthesized: Synthesized,
) -> None:
    (table,) = synthesized.resources("AWS::DynamoDB::Table").values()
    indexes = {gsi["IndexName"]: gsi for gsi in table["Properties"]["GlobalSecondaryIndexes"]}
    idle = indexes[names.IDLE_INDEX]
    assert [k["AttributeName"] for k in idle["KeySchema"]] == [names.IDLE_PK, names.IDLE_SK]
    assert idle["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["session_key"]}


def test_the_idle_sweep_reads_transcripts_and_never_writes_or_deletes_them(synthesized: Synthesized) -> None:
    s3 = {a for a in _actions(synthesized) if a.startswith("s3:")}
    assert s3 and not any(a.startswith(("s3:Put", "s3:Delete")) for a in s3)
    assert {"dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem"} <= _actions(synthesized)
