"""DynamoDB item layout: keys, timestamps and attribute (de)serialisation."""

from __future__ import annotations

import hashlib
import json
import zlib
from datetime import UTC, datetime
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from continuity_core.kernel.errors import KeyTooLongError
from continuity_core.kernel.names import (
    AGENT_PREFIX,
    CHECKPOINT_PREFIX,
    LEDGER_ENTRY_PREFIX,
    LEDGER_PART,
    PK,
    PROJECT_HASH_CHARS,
    PROJECT_NOTES_PART,
    PROJECT_PART,
    PROJECTS_PART,
    SESSION_PART,
    SK,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

# DynamoDB refuses partition keys over 2,048 bytes; say so as bad input, not a storage failure.
MAX_PARTITION_KEY_BYTES = 2048


def _partition_key(key: str) -> str:
    if len(key.encode("utf-8")) > MAX_PARTITION_KEY_BYTES:
        raise KeyTooLongError(f"key over {MAX_PARTITION_KEY_BYTES} bytes")
    return key


def session_pk(agent_id: str, session_key: str) -> str:
    return _partition_key(f"{AGENT_PREFIX}{agent_id}{SESSION_PART}{session_key}")


def project_hash(project: str) -> str:
    """What a project is in a key: the hash of whatever string names it (a path, later a repository
    id), never the string. A path may hold anything a file system allows (a secret, "#", 4 KB); the
    string itself is kept as an attribute, redacted (``extraction/paths.normalize_project``)."""
    return hashlib.sha256(project.encode("utf-8", "surrogatepass")).hexdigest()[:PROJECT_HASH_CHARS]


def project_pk(agent_id: str, project_normalized: str) -> str:
    return f"{AGENT_PREFIX}{agent_id}{PROJECT_PART}{project_hash(project_normalized)}"


def project_notes_pk(agent_id: str, project_normalized: str) -> str:
    """The session index partition of a project's session notes (every session, newest first)."""
    return f"{AGENT_PREFIX}{agent_id}{PROJECT_NOTES_PART}{project_hash(project_normalized)}"


def projects_pk(agent_id: str) -> str:
    """The agent's project records (``PROJECT_RECORD_PREFIX`` + the project's hash)."""
    return f"{AGENT_PREFIX}{agent_id}{PROJECTS_PART}"


def item_key(pk: str, sk: str) -> dict[str, Any]:
    """An item's primary key, as DynamoDB's API takes it."""
    return {PK: {"S": pk}, SK: {"S": sk}}


def timestamp(moment: datetime) -> str:
    """Fixed-width UTC ISO 8601, so string order is time order."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_timestamp(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def millis(moment: datetime) -> int:
    """Epoch milliseconds: a transcript append's ``at`` (when it was written)."""
    return int(moment.timestamp() * 1000)


def moment(epoch_ms: int) -> datetime:
    return datetime.fromtimestamp(epoch_ms / 1000, UTC)


def checkpoint_sk(created_at: datetime, checkpoint_id: str) -> str:
    return f"{CHECKPOINT_PREFIX}{timestamp(created_at)}#{checkpoint_id}"


@lru_cache(maxsize=1)
def _codecs() -> tuple[Any, Any]:
    from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

    return TypeSerializer(), TypeDeserializer()


# Long texts (a transcript append, a checkpoint's or a block's body) are raw deflate with a preset
# dictionary of real coding-session text (``data/text_dictionary_v1.json``, built by
# ``bench/build_text_dictionary.py``): ~17 % smaller than zlib alone on sessions the dictionary never
# saw, and each KB saved is a write unit. The first byte says which format: this marker, or 0x78,
# the zlib header every text written before starts with (still read). 2, not 1: short texts use 1.
TEXT_DICTIONARY_V1 = 2


@lru_cache(maxsize=1)
def _text_dictionary() -> bytes:
    from importlib.resources import files

    data = json.loads(files("continuity_core").joinpath("data/text_dictionary_v1.json").read_text("utf-8"))
    return str(data["text"]).encode("utf-8")


def compress_text(text: str) -> bytes:
    """Text for a binary attribute: DynamoDB bills by item size, and prose and code compress ~3x."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, _text_dictionary())
    return bytes([TEXT_DICTIONARY_V1]) + packer.compress(text.encode("utf-8")) + packer.flush()


def decompress_text(data: bytes) -> str:
    """A text as ``compress_text`` stores it, or as zlib alone stored it before the dictionary."""
    if data[:1] == bytes([TEXT_DICTIONARY_V1]):
        unpacker = zlib.decompressobj(-15, _text_dictionary())
        text = unpacker.decompress(data[1:]) + unpacker.flush()
        if not unpacker.eof:  # as zlib.decompress refuses a cut stream
            raise zlib.error("compressed text ends early")
        return text.decode("utf-8")
    return zlib.decompress(data).decode("utf-8")


# Short texts (a pending prompt's snippet, ~200 characters) compress poorly alone (zlib: ~30 %); with a
# preset dictionary of the words coding talk uses, ~40 % (200 → ~125 bytes). One byte says which
# dictionary: a stored snippet stays readable when a new one comes.
SHORT_TEXT_V1 = 1


@lru_cache(maxsize=1)
def _short_text_dictionary() -> bytes:
    from importlib.resources import files

    data = json.loads(files("continuity_core").joinpath("data/snippet_dictionary_v1.json").read_text("utf-8"))
    return str(data["text"]).encode("utf-8")


def compress_short_text(text: str) -> bytes:
    """A short text for a binary list element: a version byte, then raw deflate with the dictionary."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, _short_text_dictionary())
    return bytes([SHORT_TEXT_V1]) + packer.compress(text.encode("utf-8")) + packer.flush()


def decompress_short_text(data: bytes) -> str:
    if not data or data[0] != SHORT_TEXT_V1:
        raise ValueError(f"unknown short-text encoding {data[:1]!r}")
    unpacker = zlib.decompressobj(-15, _short_text_dictionary())
    return (unpacker.decompress(data[1:]) + unpacker.flush()).decode("utf-8")


def short_texts(values: list[Any]) -> list[str]:
    """A list of texts as stored: plain strings (items written before) or compressed binaries."""
    return [v if isinstance(v, str) else decompress_short_text(bytes(getattr(v, "value", v))) for v in values]


def body_attribute(fields: dict[str, Any]) -> dict[str, Any]:
    """Fields stored as one compressed JSON attribute (``body``, ``compress_text``): billed by size."""
    return {"body": {"B": compress_text(json.dumps(fields, ensure_ascii=False, separators=(",", ":")))}}


def with_body(item: dict[str, Any]) -> dict[str, Any]:
    """An item's plain values, its ``body`` fields unpacked (an item without one: as it is)."""
    body = item.get("body", {}).get("B")
    values = from_attributes({k: v for k, v in item.items() if k != "body"})
    if body is not None:
        values.update(json.loads(decompress_text(bytes(body))))
    return values


def model_item(
    model: BaseModel, body_fields: tuple[str, ...], times: tuple[str, ...], attributes: dict[str, Any]
) -> dict[str, Any]:
    """A record as an item (a checkpoint, a hand-off): its plain fields as attributes (``times`` as
    fixed-width timestamps) with ``attributes`` (keys, TTL), ``body_fields`` in the compressed body."""
    values = model.model_dump(mode="json", exclude=set(body_fields))
    for name in times:
        moment = getattr(model, name)
        if moment is not None:
            values[name] = timestamp(moment)
    values.update(attributes)
    fields = model.model_dump(mode="json", include=set(body_fields), exclude_defaults=True)
    return to_attributes(values) | body_attribute(fields)


def model_values(item: dict[str, Any], times: tuple[str, ...]) -> dict[str, Any]:
    """A ``model_item``'s values again, its body unpacked and ``times`` parsed, for ``model_validate``."""
    values = with_body(item)
    for name in times:
        if values.get(name):
            values[name] = parse_timestamp(values[name])
    return values


def to_attributes(values: dict[str, Any]) -> dict[str, Any]:
    serializer, _ = _codecs()
    return {key: serializer.serialize(value) for key, value in values.items() if value is not None}


def to_attribute(value: Any) -> Any:
    serializer, _ = _codecs()
    return serializer.serialize(value)


def from_attributes(item: dict[str, Any]) -> dict[str, Any]:
    _, deserializer = _codecs()
    return {key: _plain(deserializer.deserialize(value)) for key, value in item.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def ledger_pk(agent_id: str, project_normalized: str) -> str:
    return f"{AGENT_PREFIX}{agent_id}{LEDGER_PART}{project_hash(project_normalized)}"


def ledger_entry_sk(created_at: datetime, entry_id: str) -> str:
    return f"{LEDGER_ENTRY_PREFIX}{timestamp(created_at)}#{entry_id}"
