"""S3 buckets declared in ``wiring.BUCKETS`` (transcript bodies)."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Acknowledgment, Duration, RemovalPolicy, Validations
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra.constructs.defaults import NAG_PACK, construct_id
from infra.wiring import BucketSpec

# Multipart uploads are not used; any left behind by a failed client are cleaned up.
ABORT_INCOMPLETE_UPLOADS_AFTER = Duration.days(1)


class Buckets(Construct):
    """Private buckets: SSE-S3, all public access blocked, TLS only (a bucket policy denies plain
    HTTP), objects expiring ``retention_days + orphan_grace_days`` after they were written, so bodies
    whose head item expired do not linger. Retained unless the stage is ephemeral (then emptied and
    destroyed with the stack)."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        buckets: Sequence[BucketSpec],
        retention_days: int,
        ephemeral: bool,
    ) -> None:
        super().__init__(scope, id)
        self.specs: dict[str, BucketSpec] = {spec.key: spec for spec in buckets}
        self.buckets: dict[str, s3.Bucket] = {
            spec.key: self._bucket(spec, retention_days, ephemeral) for spec in buckets
        }

    def _bucket(self, spec: BucketSpec, retention_days: int, ephemeral: bool) -> s3.Bucket:
        bucket = s3.Bucket(
            self,
            construct_id(spec.key),
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            enforce_ssl=True,
            versioned=True,
            lifecycle_rules=[
                s3.LifecycleRule(
                    id="ExpireOrphanedBodies",
                    expiration=Duration.days(retention_days + spec.orphan_grace_days),
                    abort_incomplete_multipart_upload_after=ABORT_INCOMPLETE_UPLOADS_AFTER,
                    # A deleted body is restorable while the table's PITR reaches back, then goes.
                    noncurrent_version_expiration=Duration.days(spec.noncurrent_days),
                    expired_object_delete_marker=False,
                )
            ],
            removal_policy=RemovalPolicy.DESTROY if ephemeral else RemovalPolicy.RETAIN,
            auto_delete_objects=ephemeral,
        )
        Validations.of(bucket).acknowledge(
            Acknowledgment(
                id=f"{NAG_PACK}::AwsSolutions-S1",
                reason="Only the service's own function roles read or write these objects (one grant each, "
                "in infra/wiring.py); CloudTrail data events are the audit trail if one is needed, "
                "server access logs would need a second bucket for no consumer.",
            )
        )
        return bucket
