"""Move items keyed by a raw project path to the hashed project key (docs/SECURITY.md, migration).

    python -m infra.migrate_project_keys --stage prod [--dry-run]
    python -m infra.migrate_project_keys --table NAME [--endpoint-url URL]   # the local stack's moto

Since issue 22, a project appears in a key only as ``dynamo_items.project_hash`` of its redacted
normal form. Items written before hold the path itself (``A#{agent}#P#/work/app``). Run this once
after deploying: until it has run, a project's listings (sessions, checkpoints, decisions) show
only what was written since the deploy; nothing is lost, sessions are read by their own key
throughout. It scans the table once and, for each item under a raw path:

* checkpoints and transcript heads (the path only in the index key ``gsi1pk``/``gsi2pk``): one
  ``UpdateItem`` that sets the hashed value, only if the old one is still there;
* ledger entries and a project's session notes (the path in ``pk``): in one transaction, the item
  put under the hashed partition and the old one deleted;
* a ledger head: moved the same way; when a head under the hashed key exists already (decisions
  recorded since the deploy), the old head's decisions go before its own and the counts add up, in
  the same transaction as the old head's delete.

Every item's ``project``/``project_normalized`` attributes are redacted as new writes are (a
session's state too: its project is looked up by them). Compressed bodies are left as written:
answers are redacted again on the way out. The run is idempotent (a second one changes nothing)
and can be stopped and run again.
Exit status: 0 done, 1 some items failed (listed), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from continuity_core.extraction.paths import normalize_project
from continuity_core.kernel.dynamo_items import project_hash
from continuity_core.kernel.names import (
    AGENT_PREFIX,
    LEDGER_HEAD_SK,
    LEDGER_PART,
    PK,
    PROJECT_HASH_CHARS,
    PROJECT_INDEX_PK,
    PROJECT_NOTES_PART,
    PROJECT_PART,
    SESSION_INDEX_PK,
    SK,
)
from continuity_core.redaction import redact

_HASHED = re.compile(rf"[0-9a-f]{{{PROJECT_HASH_CHARS}}}")
_PROJECT_PARTS = (PROJECT_NOTES_PART, PROJECT_PART, LEDGER_PART)  # "#PS#" before "#P#"
_INDEX_KEYS = (PROJECT_INDEX_PK, SESSION_INDEX_PK)
_SHOWN = ("project", "project_normalized")


def hashed_key(value: str) -> str | None:
    """The hashed form of a project key written under a raw path; None when ``value`` is no project
    key or is hashed already. The agent id holds no "#", so the first part marker after it is the
    separator, whatever the path holds."""
    if not value.startswith(AGENT_PREFIX):
        return None
    agent, separator, rest = value[len(AGENT_PREFIX) :].partition("#")
    if not separator:
        return None
    for part in _PROJECT_PARTS:
        marker = part[1:]  # without the "#" the partition took
        if rest.startswith(marker):
            project = rest[len(marker) :]
            if _HASHED.fullmatch(project):
                return None
            return f"{AGENT_PREFIX}{agent}{part}{project_hash(normalize_project(project) or project)}"
    return None


@dataclass
class MigrationResult:
    scanned: int = 0
    reindexed: int = 0  # checkpoints, transcript heads, states: index key or shown path rewritten in place
    moved: int = 0  # ledger entries, session notes, ledger heads: put under the hashed key
    merged: int = 0  # ledger heads merged into one written since the deploy
    failed: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return self.reindexed + self.moved + self.merged


def migrate(dynamodb: Any, table: str, dry_run: bool = False) -> MigrationResult:
    result = MigrationResult()
    for item in _scan(dynamodb, table):
        result.scanned += 1
        try:
            _migrate_item(dynamodb, table, item, result, dry_run)
        except dynamodb.exceptions.ClientError as error:
            code = error.response.get("Error", {}).get("Code", "?")
            result.failed.append(f"{item[PK]['S'][:40]}… {item[SK]['S'][:40]}: {code}")
    return result


def _scan(dynamodb: Any, table: str) -> Iterator[dict[str, Any]]:
    request: dict[str, Any] = {"TableName": table}
    while True:
        page = dynamodb.scan(**request)
        yield from page.get("Items", [])
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _redacted(item: dict[str, Any]) -> dict[str, Any]:
    shown = {name: item[name]["S"] for name in _SHOWN if "S" in item.get(name, {})}
    return {name: {"S": redact(value)} for name, value in shown.items() if redact(value) != value}


def _migrate_item(
    dynamodb: Any, table: str, item: dict[str, Any], result: MigrationResult, dry_run: bool
) -> None:
    new_pk = hashed_key(item[PK]["S"])
    index = {name: hashed_key(item[name]["S"]) for name in _INDEX_KEYS if "S" in item.get(name, {})}
    index = {name: value for name, value in index.items() if value}
    if new_pk is None and not index and not _redacted(item):
        return
    if new_pk is None:  # the path only in an index key, or only in what is shown (a session's state)
        result.reindexed += 1
        if not dry_run:
            _reindex(dynamodb, table, item, {**{n: {"S": v} for n, v in index.items()}, **_redacted(item)})
        return
    moved = {**item, **{n: {"S": v} for n, v in index.items()}, **_redacted(item), PK: {"S": new_pk}}
    old_key = {PK: item[PK], SK: item[SK]}
    if item[SK]["S"] == LEDGER_HEAD_SK:
        existing = dynamodb.get_item(
            TableName=table, Key={PK: {"S": new_pk}, SK: item[SK]}, ConsistentRead=True
        )
        if "Item" in existing:
            result.merged += 1
            if not dry_run:
                _merge_head(dynamodb, table, item, new_pk, old_key)
            return
    result.moved += 1
    if not dry_run:
        dynamodb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": table, "Item": moved}},
                {"Delete": {"TableName": table, "Key": old_key}},
            ]
        )


def _reindex(dynamodb: Any, table: str, item: dict[str, Any], values: dict[str, Any]) -> None:
    names = {f"#a{n}": name for n, name in enumerate(values)}
    new_values = {f":a{n}": value for n, value in enumerate(values.values())}
    old_values = {f":o{n}": item[name] for n, name in enumerate(values) if name in _INDEX_KEYS}
    # Only if the item is still there, its index keys as read (a pruned item is not written again).
    conditions = [f"attribute_exists({PK})"]
    conditions += [f"#a{n} = :o{n}" for n, name in enumerate(values) if name in _INDEX_KEYS]
    dynamodb.update_item(
        TableName=table,
        Key={PK: item[PK], SK: item[SK]},
        UpdateExpression="SET " + ", ".join(f"#a{n} = :a{n}" for n in range(len(values))),
        ConditionExpression=" AND ".join(conditions),
        ExpressionAttributeNames=names,
        ExpressionAttributeValues={**new_values, **old_values},
    )


def _merge_head(dynamodb: Any, table: str, old: dict[str, Any], new_pk: str, old_key: dict[str, Any]) -> None:
    """The old head's decisions before the new head's own (they are older), the counts added."""
    dynamodb.transact_write_items(
        TransactItems=[
            {
                "Update": {
                    "TableName": table,
                    "Key": {PK: {"S": new_pk}, SK: old[SK]},
                    "UpdateExpression": "SET recent = list_append(:old, if_not_exists(recent, :empty)) "
                    "ADD decision_count :count",
                    "ExpressionAttributeValues": {
                        ":old": old.get("recent", {"L": []}),
                        ":empty": {"L": []},
                        ":count": old.get("decision_count", {"N": "0"}),
                    },
                }
            },
            {
                "Delete": {
                    "TableName": table,
                    "Key": old_key,
                    "ConditionExpression": f"attribute_exists({PK})",
                }
            },
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m infra.migrate_project_keys", description=__doc__.split("\n")[0]
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--stage", help="the deployed stage; the table from the stack's outputs")
    where.add_argument("--table", help="the table's name")
    parser.add_argument("--endpoint-url", help="a DynamoDB endpoint (the local stack's moto)")
    parser.add_argument("--profile")
    parser.add_argument("--dry-run", action="store_true", help="count what would change, change nothing")
    args = parser.parse_args(argv)

    import boto3

    session = boto3.Session(profile_name=args.profile)
    table = args.table or _table_of_stage(session, args.stage)
    dynamodb = session.client("dynamodb", endpoint_url=args.endpoint_url)
    result = migrate(dynamodb, table, dry_run=args.dry_run)
    verb = "would change" if args.dry_run else "changed"
    print(
        f"scanned {result.scanned} items; {verb} {result.changed}: {result.reindexed} re-indexed, "
        f"{result.moved} moved, {result.merged} ledger heads merged; {len(result.failed)} failed"
    )
    for failure in result.failed:
        print(f"  failed: {failure}", file=sys.stderr)
    return 1 if result.failed else 0


def _table_of_stage(session: Any, stage: str) -> str:
    from infra.outputs import TABLE_NAME, describe_outputs, require

    return require(describe_outputs(stage, session.client("cloudformation")), TABLE_NAME, stage)


if __name__ == "__main__":
    raise SystemExit(main())
