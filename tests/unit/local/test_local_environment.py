"""A local function's environment is the one CDK gives it, plus what Lambda and the local AWS need."""

from __future__ import annotations

import pytest

from infra import wiring
from infra.local.environment import function_environment

RESOURCES = {
    wiring.CONTINUITY_TABLE.key: {wiring.CONTINUITY_TABLE.env_var: "table"},
    wiring.CHECKPOINT_QUEUE.key: {wiring.CHECKPOINT_QUEUE.env_var: "http://moto/queue"},
    wiring.TRANSCRIPT_BUCKET.key: {wiring.TRANSCRIPT_BUCKET.env_var: "bucket"},
}


def test_a_function_gets_the_config_its_own_variables_and_only_the_resources_it_declares() -> None:
    env = function_environment(
        wiring.READ_API,
        config={"CONTINUITY_PROMPT_INTERVAL": "10"},
        resources=RESOURCES,
        endpoint_url="http://moto",
    )

    assert env["CONTINUITY_PROMPT_INTERVAL"] == "10"
    assert env["POWERTOOLS_SERVICE_NAME"] == "continuity"
    assert env[wiring.CONTINUITY_TABLE.env_var] == "table"
    assert wiring.CHECKPOINT_QUEUE.env_var not in env and wiring.TRANSCRIPT_BUCKET.env_var not in env
    assert wiring.API_TOKEN_ENV_VAR not in env


def test_a_function_gets_what_lambda_sets_and_the_local_aws() -> None:
    env = function_environment(wiring.SESSIONS, config={}, resources=RESOURCES, endpoint_url="http://moto")

    assert env["AWS_LAMBDA_FUNCTION_NAME"] == "continuity-local-sessions"
    assert env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] == "1024"  # search sizes its index by it
    assert env["AWS_ENDPOINT_URL"] == "http://moto"
    assert env["AWS_ACCESS_KEY_ID"] == "testing" and env["AWS_REGION"] == "us-east-1"


def test_extra_variables_go_to_the_function_they_are_given_for() -> None:
    extra = {wiring.API_TOKEN_ENV_VAR: "ab12"}

    env = function_environment(
        wiring.AUTHORIZER, config={}, resources=RESOURCES, extra=extra, endpoint_url="http://moto"
    )

    assert env[wiring.API_TOKEN_ENV_VAR] == "ab12"


def test_a_resource_the_stack_did_not_provision_is_named() -> None:
    with pytest.raises(KeyError, match="'hooks': unknown resource 'checkpoint_queue'"):
        function_environment(
            wiring.HOOKS,
            config={},
            resources={k: v for k, v in RESOURCES.items() if k != wiring.CHECKPOINT_QUEUE.key},
            endpoint_url="http://moto",
        )
