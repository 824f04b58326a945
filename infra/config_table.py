"""The README's configuration table, generated from the config model: ``python -m infra.config_table``.

One row per field of ``ContinuityConfig`` (``layers/continuity_core/kernel/config.py``), in its order: the
cdk.json key (camelCase, in the ``continuity`` context), the environment variable the functions
read, the default, the accepted range (the field's bounds) and the meaning (its description). The
table sits between two markers in README.md; this rewrites what is between them. ``--check``
changes nothing and exits 1 when the README's table is not the generated one (a test does the same).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import annotated_types
from pydantic.fields import FieldInfo

from continuity_core.kernel.config import ContinuityConfig, camel_case, environment_variable
from infra.generated import replace_section

README = Path(__file__).resolve().parents[1] / "README.md"
START = (
    "<!-- config-table: generated from layers/continuity_core/kernel/config.py"
    " by `python -m infra.config_table` -->"
)
END = "<!-- /config-table -->"
HEADER = "| setting (cdk.json) | environment variable | default | range | meaning |\n|---|---|---|---|---|\n"
DASH = "\N{EN DASH}"


def number(value: object) -> str:
    """4.0 -> 4: a whole float reads as the integer it is."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def default_text(value: object) -> str:
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return number(value)


def range_text(field: FieldInfo) -> str:
    """``1-1000`` (an en dash) for inclusive bounds, else each bound said (``> 0, <= 168``); none: ""."""
    low = high = ""
    low_open = high_open = False
    for bound in field.metadata:
        if isinstance(bound, annotated_types.Ge):
            low = number(bound.ge)
        elif isinstance(bound, annotated_types.Gt):
            low, low_open = number(bound.gt), True
        elif isinstance(bound, annotated_types.Le):
            high = number(bound.le)
        elif isinstance(bound, annotated_types.Lt):
            high, high_open = number(bound.lt), True
    if low and high and not (low_open or high_open):
        return f"{low}{DASH}{high}"
    parts = []
    if low:
        parts.append(f"> {low}" if low_open else f"\N{GREATER-THAN OR EQUAL TO} {low}")
    if high:
        parts.append(f"< {high}" if high_open else f"\N{LESS-THAN OR EQUAL TO} {high}")
    return ", ".join(parts)


def row(name: str, field: FieldInfo) -> str:
    cells = (
        f"`{camel_case(name)}`",
        f"`{environment_variable(name)}`",
        default_text(field.default),
        range_text(field),
        field.description or "",
    )
    return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"


def table() -> str:
    rows = [row(name, field) for name, field in ContinuityConfig.model_fields.items()]
    return HEADER + "\n".join(rows) + "\n"


def render(readme: str) -> str:
    """``readme`` with the text between the markers replaced by the generated table."""
    return replace_section(readme, START, END, table())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.config_table", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when README.md's table differs")
    args = parser.parse_args(argv)
    current = README.read_text(encoding="utf-8")
    wanted = render(current)
    if args.check:
        if wanted != current:
            print(
                "README.md's configuration table is not the generated one: run python -m infra.config_table"
            )
            return 1
        return 0
    if wanted != current:
        README.write_text(wanted, encoding="utf-8")
        print(f"written the configuration table in {README}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
