"""How the user wants the agent to talk to them is a standing rule, however politely put."""

from __future__ import annotations

import pytest

from continuity_core.extraction.sticky import Role, extract
from continuity_core.models.session_digest import FactKind


@pytest.mark.parametrize(
    "said",
    [
        "please answer in Japanese",
        "Reply in English from now on.",
        "Please keep the answers short, I read them on my phone.",
    ],
)
def test_a_preference_about_how_to_answer_is_a_rule(said: str) -> None:
    # Given the user's sentence about how the agent should answer
    # When it is read
    kinds = [c.kind for c in extract(said, Role.USER)]

    # Then it is a constraint (shown under Rules in force)
    assert FactKind.CONSTRAINT in kinds


def test_where_to_put_an_answer_is_no_language_preference() -> None:
    # Given a sentence that says where an answer goes, not in which language
    # When it is read
    kinds = [c.kind for c in extract("answer in the README please", Role.USER)]

    # Then it is not taken for a standing rule
    assert FactKind.CONSTRAINT not in kinds
