"""rspec's verdict lines: the examples its rerun lines name as failing, files that failed to load, and
whether the totals say nothing failed (``parse_rspec``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from continuity_core.extraction.runner_output import Found

# --- rspec -----------------------------------------------------------------------------------------

_RSPEC_RERUN = re.compile(r"^rspec (\./\S+?(?::\d+|\[[\d:,]+\])) # ")
RSPEC_TOTALS = re.compile(r"^(\d+) examples?, (\d+) failures?(.*)$")
_RSPEC_LOAD_ERROR = re.compile(r"^An error occurred while loading (\./\S+?)\.?$")


def parse_rspec(lines: Sequence[str]) -> Found:
    found = Found()
    totals: list[tuple[int, int, str]] = []
    for line in lines:
        if m := _RSPEC_RERUN.match(line):
            found.shape = True
            found.fail(m.group(1))
        elif m := RSPEC_TOTALS.match(line):
            found.shape = True
            totals.append((int(m.group(1)), int(m.group(2)), m.group(3)))
        elif m := _RSPEC_LOAD_ERROR.match(line):
            found.shape = True
            found.fail(m.group(1))
        elif line == "Failed examples:":
            found.shape = True
    found.all_passed = bool(totals) and all(
        examples > 0 and failures == 0 and "outside of examples" not in rest
        for examples, failures, rest in totals
    )
    return found
