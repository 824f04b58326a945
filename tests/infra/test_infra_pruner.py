"""The pruner in the synthesized stack: an hourly EventBridge rule, least privilege."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from infra import wiring

if TYPE_CHECKING:
    from tests.infra.synth import Synthesized


def _pruner_id(synthesized: Synthesized) -> str:
    return synthesized.logical_id(synthesized.stack.functions.functions[wiring.PRUNER.key])


def _role_actions(synthesized: Synthesized) -> list[dict[str, Any]]:
    role = synthesized.stack.functions.functions[wiring.PRUNER.key].role
    assert role is not None
    role_id = synthesized.logical_id(role)
    statements = []
    for policy in synthesized.resources("AWS::IAM::Policy").values():
        if {"Ref": role_id} in policy["Properties"]["Roles"]:
            statements += policy["Properties"]["PolicyDocument"]["Statement"]
    return statements


def test_an_hourly_rule_runs_the_pruner(synthesized: Synthesized) -> None:
    # When the stack's EventBridge rules are read
    rules = synthesized.resources("AWS::Events::Rule").values()
    pruner = {"Fn::GetAtt": [_pruner_id(synthesized), "Arn"]}
    # Then one runs every hour and targets the pruner
    (rule,) = [r for r in rules if any(t["Arn"] == pruner for t in r["Properties"]["Targets"])]
    assert rule["Properties"]["ScheduleExpression"] == "rate(1 hour)"
    assert rule["Properties"]["State"] == "ENABLED"


def test_events_may_invoke_the_pruner(synthesized: Synthesized) -> None:
    permissions = synthesized.resources("AWS::Lambda::Permission").values()

    assert any(
        p["Properties"]["Principal"] == "events.amazonaws.com"
        and p["Properties"]["FunctionName"] == {"Fn::GetAtt": [_pruner_id(synthesized), "Arn"]}
        for p in permissions
    )


def test_the_pruner_may_delete_transcript_bodies_but_not_read_or_write_them(synthesized: Synthesized) -> None:
    statements = _role_actions(synthesized)
    s3_actions = {
        action
        for statement in statements
        for action in ([statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"])
        if action.startswith("s3:")
    }

    assert s3_actions == {"s3:DeleteObject"}
