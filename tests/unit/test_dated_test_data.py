"""What a test stores is dated by a clock the test controls, not by a fixed day that ages.

A transcript or checkpoint written at a fixed date reads as expired once that date is older than
the retention, so the test fails on a later day instead of on the change that wrote it (seven
integration tests did on 2026-12-02: transcripts written on 2026-11-22, read on the real clock).
Tests take their times from ``tests/support/clock.py`` (``install_clock``; the stores' ``Clock``),
relative to its ``now``.

This reads the sources of the layers that write to the service for date literals, ISO-8601 text
(``"2026-11-22"``, ``"2026-11-22T09:00:00Z"``) or ``datetime(2026, 11, 22, ...)``, older than today
minus the shortest retention of the config model, and fails on any outside the files below, each
listed with why its dates do not expire. Comments and docstrings are not read.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from continuity_core.kernel.config import ContinuityConfig

TESTS = Path(__file__).resolve().parents[1]
SCANNED = ("integration", "contract", "e2e", "harness", "support")
ISO_DATE = re.compile(r"(?<!\d)(20\d\d)-(\d\d)-(\d\d)(?!\d)")
DATE_TYPES = {"datetime", "date"}

ON_FROZEN_CLOCK = "the functions run on install_clock(T0): its dates are that clock's, not the calendar's"
# Files whose old dates are no stored data that expires, and why (paths from tests/).
NOT_EXPIRING = {
    "integration/test_pruner_retention.py": ON_FROZEN_CLOCK,
    "integration/test_pruner_expiry_index.py": ON_FROZEN_CLOCK,
    "integration/test_idle_sweep.py": ON_FROZEN_CLOCK,
    "integration/test_token_migration.py": "token items of the previous version: tokens have no retention",
    "integration/test_bad_input.py": "a `since` in a query, parsed and never stored",
    "contract/conftest.py": "the stores under contract run on Clock(T0): dates are that clock's",
    "e2e/fleet.py": "a Claude Code record's timestamp: the client never reads nor sends it",
}


def shortest_retention() -> timedelta:
    fields = ContinuityConfig.model_fields
    days = min(fields[name].default for name in ("transcript_retention_days", "retention_days"))
    return timedelta(days=days)


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the bare string statements (docstrings): prose, not data."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def as_date(year: object, month: object, day: object) -> date | None:
    try:
        return date(int(str(year)), int(str(month)), int(str(day)))
    except ValueError:
        return None


def dates_in(source: str) -> Iterator[tuple[int, date]]:
    """Each date literal in ``source``: its line and its day."""
    tree = ast.parse(source)
    prose = docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            for match in ISO_DATE.finditer(node.value):
                if day := as_date(*match.groups()):
                    yield node.lineno, day
        elif isinstance(node, ast.Call) and called(node) in DATE_TYPES and len(node.args) >= 3:
            parts = [arg.value for arg in node.args[:3] if isinstance(arg, ast.Constant)]
            if len(parts) == 3 and all(isinstance(part, int) for part in parts) and (day := as_date(*parts)):
                yield node.lineno, day


def called(call: ast.Call) -> str:
    function = call.func
    return function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")


def expired_dates(today: date) -> list[str]:
    oldest = today - shortest_retention()
    found = []
    for layer in SCANNED:
        for path in sorted((TESTS / layer).rglob("*.py")):
            name = path.relative_to(TESTS).as_posix()
            if name in NOT_EXPIRING:
                continue
            for line, day in dates_in(path.read_text(encoding="utf-8")):
                if day < oldest:
                    found.append(f"tests/{name}:{line}: {day} (older than {oldest})")
    return found


def test_no_test_writes_a_fixed_date_older_than_the_retention() -> None:
    found = expired_dates(datetime.now(UTC).date())

    assert not found, (
        "fixed dates past the retention: take them from a clock the test controls "
        "(tests/support/clock.py), relative to its now\n" + "\n".join(found)
    )


def test_the_scan_finds_iso_text_and_datetime_calls_but_not_prose() -> None:
    source = '''
"""Written on 2020-01-01."""
at = datetime(2020, 1, 2, 9, tzinfo=UTC)
text = f"created {2}: 2020-01-03T09:00:00Z"
later = datetime(2999, 1, 1)  # 2020-01-04 in a comment
'''
    found = sorted((line, day.isoformat()) for line, day in dates_in(source))

    assert found == [(3, "2020-01-02"), (4, "2020-01-03"), (5, "2999-01-01")]


def test_every_listed_file_exists() -> None:
    assert [name for name in NOT_EXPIRING if not (TESTS / name).is_file()] == []
