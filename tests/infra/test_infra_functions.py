"""Every function in the wiring is built by the one factory, as its FunctionSpec says."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from aws_cdk.assertions import Match

from infra import wiring
from infra.stack import API_TOKEN_ENV_VAR

if TYPE_CHECKING:
    from tests.infra.synth import Synthesized

SPECS = {spec.key: spec for spec in wiring.FUNCTIONS}


def _function(synthesized: Synthesized, key: str) -> dict:
    construct = synthesized.stack.functions.functions[key]
    return synthesized.resources("AWS::Lambda::Function")[synthesized.logical_id(construct)]["Properties"]


def test_the_stack_has_exactly_the_functions_of_the_wiring(synthesized: Synthesized) -> None:
    # Given the wiring's functions / When the stack is synthesized
    functions = synthesized.resources("AWS::Lambda::Function")
    # Then there is one Lambda function per FunctionSpec and no other
    assert len(functions) == len(wiring.FUNCTIONS)
    assert set(synthesized.stack.functions.functions) == set(SPECS)


@pytest.mark.parametrize("key", SPECS)
def test_each_function_runs_python_3_12_on_arm64(synthesized: Synthesized, key: str) -> None:
    # When a function is read from the template
    props = _function(synthesized, key)
    # Then the platform is the one the layers are built for
    assert props["Runtime"] == "python3.12"
    assert props["Architectures"] == ["arm64"]


@pytest.mark.parametrize("key", SPECS)
def test_each_function_carries_the_dependency_and_core_layers(synthesized: Synthesized, key: str) -> None:
    # Given the two shared layers
    layers = synthesized.resources("AWS::Lambda::LayerVersion")
    # When a function's layers are read
    refs = {ref["Ref"] for ref in _function(synthesized, key)["Layers"]}
    # Then it references both of them
    assert len(layers) == 2
    assert refs == set(layers)


@pytest.mark.parametrize("key", SPECS)
def test_each_function_gets_its_spec_env_its_resource_env_and_the_service_config(
    synthesized: Synthesized, key: str
) -> None:
    # Given a function spec and the config from cdk.json
    spec = SPECS[key]
    # When its environment is read
    env = _function(synthesized, key)["Environment"]["Variables"]
    # Then it holds the spec's variables (Powertools), one per declared resource, and the config
    for name, value in spec.environment.items():
        assert env[name] == value
    for resource in spec.resources:
        assert wiring.resource_env_var(resource) in env
    assert env["CONTINUITY_PROMPT_INTERVAL"] == "10"
    assert env["CONTINUITY_FLUSH_DELAY_SECONDS"] == "3"
    # and nothing it did not declare
    resources: tuple[wiring.TableSpec | wiring.QueueSpec, ...] = (*wiring.TABLES, *wiring.QUEUES)
    undeclared = {resource.env_var for resource in resources if resource.key not in spec.resources}
    assert undeclared.isdisjoint(env)


def test_the_table_and_queue_variables_carry_the_table_name_and_queue_url(synthesized: Synthesized) -> None:
    # Given the hooks function, which declares the table and the queue
    env = _function(synthesized, wiring.HOOKS.key)["Environment"]["Variables"]
    stack = synthesized.stack
    # Then the variables reference the table (Ref = name) and the queue (Ref = URL)
    table = stack.storage.tables[wiring.CONTINUITY_TABLE.key]
    queue = stack.queues.queues[wiring.CHECKPOINT_QUEUE.key]
    assert env[wiring.CONTINUITY_TABLE.env_var] == {"Ref": synthesized.logical_id(table)}
    assert env[wiring.CHECKPOINT_QUEUE.env_var] == {"Ref": synthesized.logical_id(queue)}


def test_only_the_authorizer_gets_the_api_token_hash(synthesized: Synthesized) -> None:
    # When the environments are read
    for key in SPECS:
        env = _function(synthesized, key)["Environment"]["Variables"]
        # Then the token hash is given to the authorizer alone
        assert (API_TOKEN_ENV_VAR in env) == (key == wiring.API_AUTHORIZER.function)


@pytest.mark.parametrize("key", SPECS)
def test_each_function_logs_to_its_own_log_group_kept_one_month(synthesized: Synthesized, key: str) -> None:
    # When a function's logging config is read
    log_group = _function(synthesized, key)["LoggingConfig"]["LogGroup"]["Ref"]
    # Then it is an explicit log group with 30 days of retention
    groups = synthesized.resources("AWS::Logs::LogGroup")
    assert groups[log_group]["Properties"]["RetentionInDays"] == 30


@pytest.mark.parametrize("key", SPECS)
def test_each_function_logs_json_without_lambdas_info_lines(synthesized: Synthesized, key: str) -> None:
    config = _function(synthesized, key)["LoggingConfig"]
    # Lambda's START/END/REPORT lines (system INFO) are not stored; our own INFO lines are
    assert (config["LogFormat"], config["SystemLogLevel"], config["ApplicationLogLevel"]) == (
        "JSON",
        "WARN",
        "INFO",
    )


def test_no_function_uses_an_aws_managed_policy(synthesized: Synthesized) -> None:
    # Then every role is the function's own, with inline grants only
    synthesized.template.all_resources_properties("AWS::IAM::Role", {"ManagedPolicyArns": Match.absent()})
