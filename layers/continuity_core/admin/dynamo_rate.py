"""Shared rate-limit windows in DynamoDB: one small item per token and minute, expiring by TTL,
holding the window's requests, its 4xx and 5xx answers and the hooks received in it; and one
long-lived item per token of when each (harness, event) hook was last received."""

from __future__ import annotations

from typing import Any

from continuity_core.admin.ports import Traffic, WindowAdds, WindowTotals
from continuity_core.kernel.aws import call_dynamodb
from continuity_core.kernel.dynamo_batch import batch_get
from continuity_core.kernel.dynamo_items import item_key
from continuity_core.kernel.names import RATE_PREFIX, RATE_SEEN_SK, SEEN_ATTRIBUTE_PREFIX, SK, TTL_ATTRIBUTE

HITS = "hits"  # a window's request count
CLIENT_ERRORS = "e4"  # its answers 400-499
SERVER_ERRORS = "e5"  # its answers 500 and over
INSTANCES = "inst"  # the function instances that added to it


def window_key(key: str, window: int) -> dict[str, Any]:
    return item_key(f"{RATE_PREFIX}{key}", str(window))


def seen_key(key: str) -> dict[str, Any]:
    return item_key(f"{RATE_PREFIX}{key}", RATE_SEEN_SK)


class DynamoRateCounter:
    def __init__(self, table_name: str) -> None:
        self._table = table_name

    def add(
        self, key: str, window: int, count: int, expires_at: int, adds: WindowAdds | None = None
    ) -> WindowTotals:
        adds = adds or WindowAdds()
        additions = [f"{HITS} :count"]
        values: dict[str, Any] = {":count": {"N": str(count)}, ":expires": {"N": str(expires_at)}}
        amounts = (
            (CLIENT_ERRORS, adds.client_errors),
            (SERVER_ERRORS, adds.server_errors),
            (INSTANCES, adds.instances),
        )
        for name, amount in amounts:
            if amount:
                additions.append(f"{name} :{name}")
                values[f":{name}"] = {"N": str(amount)}
        sets, names = _marks(adds.seen, values)
        sets.insert(0, f"{TTL_ATTRIBUTE} = :expires")
        response = call_dynamodb(
            "update_item",
            TableName=self._table,
            Key=window_key(key, window),
            UpdateExpression=f"ADD {', '.join(additions)} SET {', '.join(sets)}",
            ExpressionAttributeValues=values,
            **({"ExpressionAttributeNames": names} if names else {}),
            # The whole (small) item: UPDATED_NEW leaves out ``hits`` when a flush of answers alone
            # (a request refused before it was admitted) adds 0 to it.
            ReturnValues="ALL_NEW",
        )
        stored = response["Attributes"]
        return WindowTotals(int(stored.get(HITS, {}).get("N", 0)), int(stored.get(INSTANCES, {}).get("N", 0)))

    def keep_seen(self, key: str, seen: dict[str, int], expires_at: int) -> None:
        values: dict[str, Any] = {":expires": {"N": str(expires_at)}}
        sets, names = _marks(seen, values)
        call_dynamodb(
            "update_item",
            TableName=self._table,
            Key=seen_key(key),
            UpdateExpression=f"SET {', '.join([f'{TTL_ATTRIBUTE} = :expires', *sets])}",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )

    def traffic(self, keys: list[str], windows: list[int]) -> Traffic:
        """The windows' requests and error answers summed over ``keys``, and each hook kind's
        latest sighting in them or on the keys' long-lived items (one batch read per 100 items)."""
        wanted = [window_key(key, window) for key in keys for window in windows]
        wanted += [seen_key(key) for key in keys]
        found = Traffic()
        for item in batch_get(self._table, wanted):
            for name, value in item.items():
                if name.startswith(SEEN_ATTRIBUTE_PREFIX):
                    kind, at = name[len(SEEN_ATTRIBUTE_PREFIX) :], int(value["N"])
                    found.seen[kind] = max(found.seen.get(kind, 0), at)
            if item[SK]["S"] == RATE_SEEN_SK:
                continue
            window = int(item[SK]["S"])
            for totals, name in (
                (found.requests, HITS),
                (found.client_errors, CLIENT_ERRORS),
                (found.server_errors, SERVER_ERRORS),
            ):
                totals[window] = totals.get(window, 0) + int(item.get(name, {}).get("N", 0))
        return found


def _marks(seen: dict[str, int], values: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """``SET`` clauses for these marks (their names are the client's strings: placeholders)."""
    sets, names = [], {}
    for n, (kind, at) in enumerate(sorted(seen.items())):
        names[f"#s{n}"] = SEEN_ATTRIBUTE_PREFIX + kind
        values[f":s{n}"] = {"N": str(at)}
        sets.append(f"#s{n} = :s{n}")
    return sets, names
