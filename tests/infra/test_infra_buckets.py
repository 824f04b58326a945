"""The transcript bucket matches its BucketSpec; functions get exactly the object access they declare."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from aws_cdk import Stack
from aws_cdk.assertions import Template

from infra import wiring
from infra.constructs.buckets import Buckets
from infra.wiring import Access

if TYPE_CHECKING:
    from tests.infra.synth import Synthesized

SPECS = {spec.key: spec for spec in wiring.FUNCTIONS}
BUCKET_KEYS = {bucket.key for bucket in wiring.BUCKETS}
OBJECT_ACTIONS = {
    Access.READ: {"s3:GetObject"},
    Access.WRITE: {"s3:PutObject", "s3:DeleteObject"},
    Access.READ_WRITE: {"s3:GetObject", "s3:PutObject", "s3:DeleteObject"},
    Access.DELETE: {"s3:DeleteObject"},
}


def _bucket(synthesized: Synthesized, spec: wiring.BucketSpec) -> dict:
    logical_id = synthesized.logical_id(synthesized.stack.buckets.buckets[spec.key])
    return synthesized.resources("AWS::S3::Bucket")[logical_id]


def _s3_statements(synthesized: Synthesized, key: str) -> list[dict]:
    role = synthesized.stack.functions.functions[key].role
    assert role is not None
    role_id = synthesized.logical_id(role)
    found = []
    for policy in synthesized.resources("AWS::IAM::Policy").values():
        if {"Ref": role_id} in policy["Properties"]["Roles"]:
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
                actions = statement["Action"]
                actions = [actions] if isinstance(actions, str) else actions
                if any(a.startswith("s3:") for a in actions):
                    found.append({**statement, "Action": actions})
    return found


@pytest.mark.parametrize("spec", wiring.BUCKETS, ids=lambda b: b.key)
def test_each_bucket_is_encrypted_private_tls_only_and_retained(
    synthesized: Synthesized, spec: wiring.BucketSpec
) -> None:
    # When the bucket is read from the template (cdk.json's dev stage is not ephemeral)
    resource = _bucket(synthesized, spec)
    props = resource["Properties"]
    # Then it is SSE-S3 encrypted, blocks every kind of public access and survives stack deletion
    rule = props["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]
    assert rule["ServerSideEncryptionByDefault"] == {"SSEAlgorithm": "AES256"}
    assert props["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert resource["DeletionPolicy"] == "Retain"
    # and its policy denies any request without TLS
    policies = [
        p
        for p in synthesized.resources("AWS::S3::BucketPolicy").values()
        if p["Properties"]["Bucket"]
        == {"Ref": synthesized.logical_id(synthesized.stack.buckets.buckets[spec.key])}
    ]
    (statement,) = [
        s for p in policies for s in p["Properties"]["PolicyDocument"]["Statement"] if s["Effect"] == "Deny"
    ]
    assert statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


@pytest.mark.parametrize("spec", wiring.BUCKETS, ids=lambda b: b.key)
def test_objects_expire_after_the_retention_plus_the_orphan_grace(
    synthesized: Synthesized, spec: wiring.BucketSpec
) -> None:
    # Given the retention of cdk.json's config (7 days)
    retention = 7
    # When the lifecycle rules are read
    rules = _bucket(synthesized, spec)["Properties"]["LifecycleConfiguration"]["Rules"]
    # Then bodies left without their head item go once it has surely expired
    (rule,) = rules
    assert rule["Status"] == "Enabled"
    assert rule["ExpirationInDays"] == retention + spec.orphan_grace_days
    assert rule["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 1}
    # And a deleted body stays restorable as a noncurrent version as long as the table's PITR (35 days)
    assert _bucket(synthesized, spec)["Properties"]["VersioningConfiguration"] == {"Status": "Enabled"}
    assert rule["NoncurrentVersionExpiration"] == {"NoncurrentDays": spec.noncurrent_days}
    assert spec.noncurrent_days == 35


def test_an_ephemeral_stage_empties_and_destroys_its_buckets(bare_stack: Stack) -> None:
    # Given the buckets of an ephemeral stage
    Buckets(bare_stack, "Buckets", buckets=wiring.BUCKETS, retention_days=7, ephemeral=True)
    # When they are synthesized
    template = Template.from_stack(bare_stack)
    buckets = template.find_resources("AWS::S3::Bucket")
    # Then they go with the stack, emptied first
    assert len(buckets) == len(wiring.BUCKETS)
    assert all(bucket["DeletionPolicy"] == "Delete" for bucket in buckets.values())
    assert template.find_resources("Custom::S3AutoDeleteObjects")


@pytest.mark.parametrize("key", SPECS)
def test_a_function_gets_exactly_the_object_actions_it_declares(synthesized: Synthesized, key: str) -> None:
    # Given the function's declared bucket access
    declared = {k: a for k, a in SPECS[key].resources.items() if k in BUCKET_KEYS}
    # When the S3 statements of its role are collected
    statements = _s3_statements(synthesized, key)
    # Then there is one per declared bucket, naming its actions one by one, on that bucket's objects
    assert len(statements) == len(declared)
    for bucket_key, access in declared.items():
        bucket = synthesized.logical_id(synthesized.stack.buckets.buckets[bucket_key])
        (statement,) = [s for s in statements if bucket in str(s["Resource"])]
        assert set(statement["Action"]) == OBJECT_ACTIONS[access]
        assert statement["Resource"] == {"Fn::Join": ["", [{"Fn::GetAtt": [bucket, "Arn"]}, "/*"]]}


@pytest.mark.parametrize("key", SPECS)
def test_the_bucket_variable_is_set_exactly_for_functions_that_declare_the_bucket(
    synthesized: Synthesized, key: str
) -> None:
    # When a function's environment is read
    construct = synthesized.stack.functions.functions[key]
    env = synthesized.resources("AWS::Lambda::Function")[synthesized.logical_id(construct)]["Properties"][
        "Environment"
    ]["Variables"]
    # Then it carries the bucket name (Ref) iff it declares the bucket
    for spec in wiring.BUCKETS:
        bucket = synthesized.logical_id(synthesized.stack.buckets.buckets[spec.key])
        if spec.key in SPECS[key].resources:
            assert env[spec.env_var] == {"Ref": bucket}
        else:
            assert spec.env_var not in env


def test_the_bucket_name_is_an_output_with_a_fixed_logical_id(synthesized: Synthesized) -> None:
    bucket = synthesized.logical_id(synthesized.stack.buckets.buckets[wiring.TRANSCRIPT_BUCKET.key])
    assert synthesized.template.find_outputs("*")["TranscriptBucketName"]["Value"] == {"Ref": bucket}
