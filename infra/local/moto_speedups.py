"""Three of moto's hot paths made cheaper for the local stack, with moto's answers unchanged.

Profiled on the local stack (docs/DASHBOARD.md), most of a dashboard read's time was moto's, not
the service's:

- **Query walks the whole table.** moto's ``Table.query`` sorts every item of the table (keys
  compared as ``DynamoType`` objects, in Python) and then keeps those of the asked partition; a
  ``Query`` of one session's transcript appends cost ~50 ms with 4,000 items stored, whatever the
  partition held. Here the query sees only the candidates it would keep anyway: for a table query
  the asked partition (one dict lookup), for an index query the items whose index hash key equals
  the asked value. moto's own code then does everything else (sorting, paging, conditions,
  filters, projections, size limits) on that set, so the answer is the same.
- **The response serializer probes every member of every attribute value.** moto 5.2 serializes a
  response by walking the botocore shape; an ``AttributeValue`` has ten members (S, N, B, …, BOOL),
  each looked up in the value through a chain of alias providers, so an item of 20 attributes
  costs ~200 of those look-ups. Here an ``AttributeValue`` of DynamoDB serializes only the members
  its value holds; each member still goes through moto's own serializer (strings, base64 blobs,
  sets, nested maps and lists), so the bytes are the same.

- **An index's projection converts the item once per projected attribute.** moto's
  ``Item.project`` turns the whole item into plain values for each path; here, for paths that are
  top-level names (an index's projection, most projection expressions), only those attributes,
  once, through the same conversions.

All apply to DynamoDB only, fall back to moto's code for anything unexpected, and are checked
against moto's unpatched answers in ``tests/integration/local/test_moto_speedups.py``. They change how
fast the local stack answers, nothing a deployed stack does (DynamoDB reads only the partition,
and answers in its own time). ``CONTINUITY_LOCAL_MOTO_SPEEDUPS=0`` leaves moto as it is.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from typing import Any

SWITCH_ENV = "CONTINUITY_LOCAL_MOTO_SPEEDUPS"
_ATTRIBUTE_VALUE = "AttributeValue"
_originals: dict[str, Callable[..., Any]] = {}


def wanted() -> bool:
    return os.environ.get(SWITCH_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def installed() -> bool:
    return bool(_originals)


def install() -> None:
    """Patch moto's classes in this process (idempotent)."""
    if _originals:
        return
    from moto.core.serialize import JSONSerializer
    from moto.dynamodb.models.dynamo_type import Item
    from moto.dynamodb.models.table import Table

    _originals["query"] = Table.query
    _originals["structure"] = JSONSerializer._serialize_type_structure
    _originals["project"] = Item.project
    Table.query = _narrowed_query  # type: ignore[method-assign]
    JSONSerializer._serialize_type_structure = _serialize_structure  # type: ignore[method-assign]
    Item.project = _project_top_level  # type: ignore[method-assign]


def uninstall() -> None:
    """moto as it was (the tests compare both)."""
    if not _originals:
        return
    from moto.core.serialize import JSONSerializer
    from moto.dynamodb.models.dynamo_type import Item
    from moto.dynamodb.models.table import Table

    Table.query = _originals.pop("query")  # type: ignore[method-assign]
    JSONSerializer._serialize_type_structure = _originals.pop("structure")  # type: ignore[method-assign]
    Item.project = _originals.pop("project")  # type: ignore[method-assign]


# -- Query: only the candidates moto would keep ------------------------------------------------------


class _Candidates:
    """The table as one query sees it: ``all_items`` returns only ``items`` (in moto's order); every
    other attribute is the table's."""

    def __init__(self, table: Any, items: list[Any]) -> None:
        self._table = table
        self._items = items

    def all_items(self) -> list[Any]:
        return sorted(self._items, key=lambda x: (x.hash_key, x.range_key) if x.range_key else x.hash_key)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)


def _narrowed_query(self: Any, *args: Any, **kwargs: Any) -> Any:
    original = _originals["query"]
    call = _query_signature(original).bind(self, *args, **kwargs)
    candidates = _candidates(self, call.arguments)
    if candidates is None:
        return original(self, *args, **kwargs)
    return original(_Candidates(self, candidates), *args, **kwargs)


def _candidates(table: Any, arguments: dict[str, Any]) -> list[Any] | None:
    """The items moto's query would keep of ``all_items()`` before sorting (a superset is fine: it
    filters them again); None: let moto look at all of them."""
    from moto.dynamodb.models.dynamo_type import DynamoType, Item

    if arguments.get("index_name") is None:
        hash_key = arguments.get("hash_key")
        if not table.range_key_attr or not isinstance(hash_key, DynamoType):
            return None
        partition = table.items.get(hash_key)  # .get: the defaultdict must not grow an entry
        return [item for item in (partition or {}).values() if isinstance(item, Item)]
    conditions = arguments.get("hash_key_conditions") or []
    if not conditions:
        return None
    out = []
    for item in _every_item(table):
        if all(_same(item.attrs.get(name), value) for name, value in conditions):
            out.append(item)
    return out


def _every_item(table: Any) -> list[Any]:
    from moto.dynamodb.models.dynamo_type import Item

    items: list[Any] = []
    for hash_set in table.items.values():
        items.extend(hash_set.values() if table.range_key_attr else [hash_set])
    return [item for item in items if isinstance(item, Item)]


def _same(found: Any, expected: Any) -> bool:
    """``found == expected`` as moto compares them (type, then value); strings without the cost of
    moto's ``cast_value`` for each item."""
    if found is None:
        return False
    if expected.type == "S" and found.type == "S":
        return bool(found.value == expected.value)
    return bool(found == expected)


_signature: inspect.Signature | None = None


def _query_signature(function: Callable[..., Any]) -> inspect.Signature:
    global _signature
    if _signature is None:
        _signature = inspect.signature(function)
    return _signature


# -- projections of top-level attributes: each attribute converted once, not once per path -----------


def _project_top_level(self: Any, projection_expressions: list[list[str]]) -> Any:
    """moto's ``Item.project`` converts the whole item to plain values once per projected path (an
    index's projection: a path per key and included attribute). For paths that are distinct
    top-level names, the same result from converting just those attributes once."""
    names = [path[0] for path in projection_expressions if len(path) == 1]
    if (
        len(names) != len(projection_expressions)
        or len(set(names)) != len(names)
        or any("[" in n for n in names)
    ):
        return _originals["project"](self, projection_expressions)
    from moto.dynamodb.models.dynamo_type import Item, deserializer, serializer

    plain = {
        name: deserializer.deserialize(self.attrs[name].to_regular_json())
        for name in names
        if name in self.attrs
    }
    attrs: dict[str, Any] = serializer.serialize(plain)["M"]  # type: ignore[assignment]
    return Item(hash_key=self.hash_key, range_key=self.range_key, attrs=attrs)


# -- the serializer: an AttributeValue's members that are there ---------------------------------------


def _serialize_structure(self: Any, serialized: Any, value: Any, shape: Any, key: str) -> None:
    if not _plain_attribute_value(self, value, shape, key):
        _originals["structure"](self, serialized, value, shape, key)
        return
    wrapper: dict[str, Any] = {}
    for member_key, member_shape in shape.members.items():
        if member_key in value:
            member_shape.parent = shape
            self._serialize(wrapper, value[member_key], member_shape, member_key)
    self._default_serialize(serialized, wrapper, shape, key)


def _plain_attribute_value(serializer: Any, value: Any, shape: Any, key: str) -> bool:
    """A DynamoDB ``AttributeValue`` as moto's handlers build them: a dict of members of the shape,
    none of them None, and no response transformer that could change one."""
    if shape.name != _ATTRIBUTE_VALUE or not key or not isinstance(value, dict):
        return False
    if serializer.operation_model.service_model.service_name != "dynamodb":
        return False
    if getattr(serializer._value_picker, "response_transformers", None):
        return False
    members = shape.members
    return all(name in members and member is not None for name, member in value.items())
