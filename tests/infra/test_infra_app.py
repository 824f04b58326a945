"""The app: context validation, stack naming and the cdk-nag gate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import aws_sqs as sqs

from continuity_core.kernel.config import ConfigError
from infra.app import build_app, read_settings
from infra.build_layer import REPO_ROOT
from tests.infra.synth import DOCKER_FREE, Synthesized, cdk_json_context

# The only findings the stack may acknowledge, each with its reason in the construct that does it.
EXPECTED_ACKNOWLEDGEMENTS = {
    "AwsSolutions-L1",  # python3.12 pinned with the layer build
    "AwsSolutions-APIG4",  # the public health route
    "AwsSolutions-IAM5[Resource::<{table}.Arn>/index/*]",  # table grants include the table's GSIs
    "AwsSolutions-IAM5[Resource::<{bucket}.Arn>/*]",  # object grants: keys are made at run time
    "AwsSolutions-S1",  # no server access logs on the transcript bucket (only the service's roles use it)
}


def _context(**continuity: Any) -> dict[str, Any]:
    context = cdk_json_context()
    context["continuity"] = {**context["continuity"], **continuity}
    return context


def test_cdk_json_holds_the_default_configuration() -> None:
    # When the context of cdk.json is validated
    settings = read_settings(cdk_json_context())
    # Then it is the dev stage with the documented defaults
    assert settings.stack_name == "Continuity-dev"
    assert settings.config.prompt_interval == 10
    assert settings.config.time_interval_ms == 900_000
    assert settings.config.recovery_window_hours == 4
    assert settings.ephemeral is False
    assert settings.api_token_sha256 == ""


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ({"promptInterval": 0}, "promptInterval (CONTINUITY_PROMPT_INTERVAL)"),
        ({"retentionDays": 365}, "retentionDays (CONTINUITY_RETENTION_DAYS)"),
        ({"promptIntervall": 5}, "prompt_intervall"),
    ],
)
def test_a_bad_config_value_fails_the_app_with_a_message_naming_it(setting: dict, named: str) -> None:
    # Given cdk.json's context with one bad value / When the app is built
    with pytest.raises(ConfigError) as failure:
        build_app({**_context(**setting), **DOCKER_FREE})
    # Then the failure names the setting
    assert named in str(failure.value)


def test_an_empty_token_hash_warns_that_every_request_will_be_denied(synthesized: Synthesized) -> None:
    # Given cdk.json's empty apiTokenSha256 / When the stack's annotations are read
    warnings = [
        str(entry.data) for entry in synthesized.stack.node.metadata if entry.type == "aws:cdk:warning"
    ]
    # Then one of them explains how to set it
    assert any("apiTokenSha256 is empty" in warning for warning in warnings)


def test_a_malformed_token_hash_fails_the_app() -> None:
    with pytest.raises(ConfigError, match="apiTokenSha256"):
        read_settings({"apiTokenSha256": "not-a-sha256"})


def test_the_stage_names_the_stack_and_may_be_ephemeral() -> None:
    # Given a stage marked ephemeral in the stages map, and an override on the command line
    stages = {"stages": {"pr-42": {"ephemeral": True}}}
    # Then the stack is named after the stage and the flag is read from either place
    assert read_settings({**stages, "stage": "pr-42"}).stack_name == "Continuity-pr-42"
    assert read_settings({**stages, "stage": "pr-42"}).ephemeral is True
    assert read_settings({**stages, "stage": "pr-42", "ephemeral": "false"}).ephemeral is False
    assert read_settings({"stage": "prod"}).ephemeral is False
    with pytest.raises(ConfigError, match="stage"):
        read_settings({"stage": "Prod_1"})


def test_the_app_entry_point_exits_with_the_config_error_as_cdk_synth_would_run_it() -> None:
    # Given the context the CDK CLI passes in CDK_CONTEXT_JSON, with a bad value
    env = {**os.environ, "CDK_CONTEXT_JSON": json.dumps(_context(promptInterval=0))}
    # When the app command of cdk.json runs
    result = subprocess.run(
        [sys.executable, "-m", "infra.app"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    # Then it fails with a one-line message naming the variable, not a traceback
    assert result.returncode == 1
    assert "CONTINUITY_PROMPT_INTERVAL" in result.stderr
    assert "Traceback" not in result.stderr


def test_cdk_nag_finds_nothing_unacknowledged(synthesized: Synthesized) -> None:
    # Given the validation report of the session's synth (which would have raised on a finding)
    report = json.loads((Path(synthesized.assembly.directory) / "validation-report.json").read_text())
    (nag,) = [r for r in report["pluginReports"] if r["pluginName"] == "AwsSolutions"]
    # Then the checks passed and only the expected findings were acknowledged
    assert nag["conclusion"] == "success"
    assert nag["violations"] == []
    table = synthesized.logical_id(next(iter(synthesized.stack.storage.tables.values())))
    bucket = synthesized.logical_id(next(iter(synthesized.stack.buckets.buckets.values())))
    expected = {rule.format(table=table, bucket=bucket) for rule in EXPECTED_ACKNOWLEDGEMENTS}
    assert {v["ruleName"] for v in nag["suppressedViolations"]} <= expected


def test_an_unacknowledged_finding_makes_synth_fail(tmp_path: Path) -> None:
    # Given the app with a queue that breaks the AWS Solutions rules (no DLQ, no TLS enforcement)
    app, stack = build_app({**cdk_json_context(), **DOCKER_FREE}, outdir=str(tmp_path))
    sqs.Queue(stack, "NonCompliantQueue")
    # When it is synthesized / Then cdk-nag stops it
    with pytest.raises(RuntimeError, match="ValidationFailed") as failure:
        app.synth()
    # naming the rule and how to acknowledge it
    assert "AwsSolutions::AwsSolutions-SQS4" in str(failure.value)
