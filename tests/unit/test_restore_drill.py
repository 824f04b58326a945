"""The restore drill's comparison: any item, object or API answer that differs fails the drill."""

from __future__ import annotations

from infra.restore_drill import Snapshot, differences

BEFORE = Snapshot(
    items={"A#default#S#s1|STATE": '{"v": 1}', "A#default#S#s1|CP#1": '{"d": "x"}'},
    objects={"transcripts/default/s1/0": "aa"},
    answers={"/api/checkpoints/s1": '[200, {"checkpoints": []}]'},
)


def test_an_identical_restore_has_no_differences() -> None:
    assert differences(BEFORE, Snapshot(dict(BEFORE.items), dict(BEFORE.objects), dict(BEFORE.answers))) == []


def test_a_missing_item_a_changed_object_and_a_new_answer_are_each_named() -> None:
    after = Snapshot(
        items={"A#default#S#s1|STATE": '{"v": 1}'},
        objects={"transcripts/default/s1/0": "bb"},
        answers={**BEFORE.answers, "/api/sessions": "[200, {}]"},
    )
    assert differences(BEFORE, after) == [
        "item missing after the restore: A#default#S#s1|CP#1",
        "object changed: transcripts/default/s1/0",
        "answer not there before: /api/sessions",
    ]
