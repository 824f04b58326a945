"""The rate windows in memory: what ``admin/dynamo_rate.py`` keeps, held to it by
tests/contract/test_rate_counter_contract.py."""

from __future__ import annotations

from dataclasses import dataclass, field

from continuity_core.admin.ports import Traffic, WindowAdds, WindowTotals


@dataclass
class _Window:
    hits: int = 0
    client_errors: int = 0
    server_errors: int = 0
    instances: int = 0
    seen: dict[str, int] = field(default_factory=dict)


class InMemoryRateCounter:
    """Several instances share one window total, as they do through DynamoDB."""

    def __init__(self) -> None:
        self.windows: dict[tuple[str, int], _Window] = {}
        self.kept: dict[str, dict[str, int]] = {}  # the long-lived marks, by key
        self.calls = 0  # window writes
        self.kept_calls = 0  # long-lived item writes
        self.expiries: dict[tuple[str, int], int] = {}  # each window item's TTL (epoch s)

    def add(
        self, key: str, window: int, count: int, expires_at: int, adds: WindowAdds | None = None
    ) -> WindowTotals:
        self.calls += 1
        adds = adds or WindowAdds()
        stored = self.windows.setdefault((key, window), _Window())
        self.expiries[(key, window)] = expires_at
        stored.hits += count
        stored.client_errors += adds.client_errors
        stored.server_errors += adds.server_errors
        stored.instances += adds.instances
        stored.seen.update(adds.seen)
        return WindowTotals(stored.hits, stored.instances)

    def keep_seen(self, key: str, seen: dict[str, int], expires_at: int) -> None:
        self.kept_calls += 1
        self.kept.setdefault(key, {}).update(seen)

    def traffic(self, keys: list[str], windows: list[int]) -> Traffic:
        found = Traffic()
        for key in keys:
            for kind, at in self.kept.get(key, {}).items():
                found.seen[kind] = max(found.seen.get(kind, 0), at)
            for window in windows:
                stored = self.windows.get((key, window))
                if stored is None:
                    continue
                for totals, value in (
                    (found.requests, stored.hits),
                    (found.client_errors, stored.client_errors),
                    (found.server_errors, stored.server_errors),
                ):
                    totals[window] = totals.get(window, 0) + value
                for kind, at in stored.seen.items():
                    found.seen[kind] = max(found.seen.get(kind, 0), at)
        return found
