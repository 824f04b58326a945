"""Transcript bodies in S3: one object per chunk, gzip-compressed UTF-8 text, keys scoped by agent id."""

from __future__ import annotations

import gzip
import hashlib
import os
from typing import Any
from urllib.parse import quote

from continuity_core.kernel.aws import call
from continuity_core.kernel.names import BUCKET_ENV, TRANSCRIPT_KEY_PREFIX
from continuity_core.transcripts.ports import TranscriptBodyMissingError

_DELETE_BATCH = 1000
_GZIP_MAGIC = b"\x1f\x8b"


def chunk_key(agent_id: str, session_key: str, number: int, chunk_id: str) -> str:
    """``transcripts/{agent}/{sha256(session)[:32]}/{n:06d}-{id}.txt``: a tenant's bodies share one
    prefix (delete or audit by tenant); the session key is hashed (any characters, bounded length)."""
    session = hashlib.sha256(session_key.encode("utf-8")).hexdigest()[:32]
    return f"{TRANSCRIPT_KEY_PREFIX}/{quote(agent_id, safe='')}/{session}/{number:06d}-{chunk_id}.txt"


class S3BodyStore:
    """The bucket is resolved on first use, so functions that never touch S3 need no bucket."""

    def __init__(self, bucket: str | None = None) -> None:
        self._bucket = bucket

    @property
    def bucket(self) -> str:
        if self._bucket is None:
            name = os.environ.get(BUCKET_ENV)
            if not name:
                raise RuntimeError(f"environment variable {BUCKET_ENV} is not set")
            self._bucket = name
        return self._bucket

    def put(self, key: str, text: str) -> None:
        # mtime=0: the same text makes the same object (a retried chunk is byte-identical).
        self._call(
            "put_object",
            Bucket=self.bucket,
            Key=key,
            Body=gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0),
            ContentType="text/plain; charset=utf-8",
            ContentEncoding="gzip",
        )

    def get(self, key: str) -> str:
        from botocore.exceptions import ClientError

        try:
            response = self._call("get_object", Bucket=self.bucket, Key=key)
        except ClientError as error:
            if error.response["Error"]["Code"] in ("NoSuchKey", "404"):
                raise TranscriptBodyMissingError(key) from error
            raise
        body: bytes = response["Body"].read()
        if body[:2] == _GZIP_MAGIC:  # chunks written before compression are plain text
            body = gzip.decompress(body)
        return body.decode("utf-8")

    def delete(self, key: str) -> None:
        self._call("delete_object", Bucket=self.bucket, Key=key)

    def delete_many(self, keys: list[str]) -> list[str]:
        """Delete these objects (DeleteObjects, 1,000 a request; a missing key counts as deleted);
        answers the keys S3 could not delete."""
        failed: list[str] = []
        for start in range(0, len(keys), _DELETE_BATCH):
            batch = keys[start : start + _DELETE_BATCH]
            response = self._call(
                "delete_objects",
                Bucket=self.bucket,
                Delete={"Objects": [{"Key": key} for key in batch], "Quiet": True},
            )
            failed += [error["Key"] for error in response.get("Errors", [])]
        return failed

    @staticmethod
    def _call(operation: str, **kwargs: Any) -> Any:
        return call("s3", operation, **kwargs)
