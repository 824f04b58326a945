"""The recovery scenarios are data (bench/scenarios/*.json) that the bench validates on load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from bench.recovery_scenarios import DATA, SET_NAMES, load_set


def a_set(**scenario: Any) -> dict[str, Any]:
    base = {
        "name": "tiny",
        "domain": "backend",
        "prompts": 3,
        "plants": [
            {
                "turn": 1,
                "by": "user",
                "prompt": "use SQS",
                "facts": [{"id": "d-sqs", "kind": "decision", "probes": ["SQS"]}],
            }
        ],
        "decoy_prompts": 1,
        "decoy": [],
    }
    return {"about": "a test set", "scenarios": [{**base, **scenario}]}


def written(tmp_path: Path, body: dict[str, Any]) -> Path:
    (tmp_path / "tiny.json").write_text(json.dumps(body), encoding="utf-8")
    return tmp_path


def test_every_shipped_set_loads() -> None:
    assert sorted(path.stem for path in DATA.glob("*.json")) == sorted(SET_NAMES)
    assert [len(load_set(name)) for name in SET_NAMES] == [12, 5, 5]


def test_a_valid_file_becomes_the_scenario_it_describes(tmp_path: Path) -> None:
    [scenario] = load_set("tiny", written(tmp_path, a_set()))

    assert scenario.name == "tiny" and scenario.plants[0].facts[0].probes == ("SQS",)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            {"plants": [{"turn": 1, "by": "user", "facts": [{"id": "x", "kind": "vibe", "probes": ["a"]}]}]},
            "vibe",
        ),
        ({"plants": [{"turn": 1, "by": "someone"}]}, "someone"),
        ({"plants": [{"turn": 9, "by": "user"}]}, "after its last prompt"),
        (
            {
                "plants": [
                    {
                        "turn": 1,
                        "by": "user",
                        "facts": [{"id": "x", "kind": "answer", "probes": ["a"], "closes": "q"}],
                    }
                ]
            },
            "['q']",
        ),
        (
            {"plants": [{"turn": 1, "by": "user", "facts": [{"id": "x", "kind": "decision", "probes": []}]}]},
            "probes",
        ),
        ({"plants": [{"turn": 1, "by": "user", "said": "typo in a key"}]}, "said"),
    ],
)
def test_a_file_that_breaks_the_schema_fails_on_load_naming_what(
    tmp_path: Path, change: dict[str, Any], named: str
) -> None:
    with pytest.raises(ValidationError, match=named.replace("[", r"\[").replace("]", r"\]")):
        load_set("tiny", written(tmp_path, a_set(**change)))
