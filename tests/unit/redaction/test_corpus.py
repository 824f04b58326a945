"""The corpus: every positive's secret goes (under the right kind), every negative survives."""

from __future__ import annotations

import pytest

from continuity_core.redaction import KINDS, redact, redact_with_report
from tests.unit.redaction.support import leaked, load_negatives, load_positives, score

POSITIVES = load_positives()
NEGATIVES = load_negatives()


def test_the_corpus_is_large_enough_and_covers_every_kind() -> None:
    assert len(POSITIVES) >= 120
    assert len(NEGATIVES) >= 150
    assert {positive.kind for positive in POSITIVES} == set(KINDS)


def test_the_fakes_are_the_same_on_every_run() -> None:
    # Given the corpus loaded twice
    again = load_positives()

    # Then the generated secrets are identical (seeded), so failures reproduce
    assert [positive.secret for positive in again] == [positive.secret for positive in POSITIVES]


@pytest.mark.parametrize("positive", POSITIVES, ids=[f"{p.kind}-{n}" for n, p in enumerate(POSITIVES)])
def test_a_positive_loses_its_secret_and_reports_its_kind(positive) -> None:
    # When the text is redacted
    output, report = redact_with_report(positive.text)

    # Then no piece of the secret is left, and the kind is counted
    assert not leaked(positive.secret, output), output
    assert positive.kind in report, report
    assert f"[REDACTED:{positive.kind}]" in output or len(report) > 1


@pytest.mark.parametrize("negative", NEGATIVES, ids=[f"{n}-{x.why[:20]}" for n, x in enumerate(NEGATIVES)])
def test_a_negative_survives_unchanged(negative) -> None:
    assert redact(negative.text) == negative.text


def test_the_score_is_perfect_on_the_corpus() -> None:
    # The bench reports the same figures (redaction_recall, redaction_false_positive_rate).
    result = score(redact_with_report, POSITIVES, NEGATIVES)

    assert result.recall == 1.0
    assert result.false_positive_rate == 0.0
    assert result.kind_accuracy == 1.0


def test_redaction_is_idempotent_on_the_whole_corpus() -> None:
    for text in [p.text for p in POSITIVES] + [n.text for n in NEGATIVES]:
        once = redact(text)
        assert redact(once) == once, once
