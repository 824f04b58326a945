"""Documentation or an email pasted into a prompt as prose is not the user's words."""

from __future__ import annotations

from continuity_core.extraction.pasted import own_words

DOCS = (
    "Tools are Python packages that provide command-line interfaces.\n\n"
    "Tools can be invoked without installation using uv tool run, in which case their dependencies are "
    "installed in a temporary virtual environment isolated from the current project.\n\n"
    "Because it is very common to run tools without installing them, a uvx alias is provided.\n\n"
    "Installing the tool is useful if you need the tool to be available to other programs."
)


def test_pasted_documentation_beside_the_users_own_paragraph_is_left_out() -> None:
    # Given a prompt: the user's own paragraph, then four paragraphs pasted from a doc page
    prompt = (
        f"We need a cleaner way to reinstall without hunting for cached files. Does this page help?\n\n{DOCS}"
    )

    # When the user's words are read
    words = own_words(prompt)

    # Then their paragraph stays and the documentation is gone
    assert "We need a cleaner way to reinstall" in words
    assert "uv tool run" not in words and "Installing the tool" not in words


def test_a_prompt_of_the_users_own_paragraphs_is_kept_whole() -> None:
    # Given a prompt of short paragraphs the user wrote, one of them addressing no one
    prompt = "Let's fix the totals.\n\nThe tax is wrong for Belgium.\n\nPlease keep the old API."

    # When the user's words are read
    words = own_words(prompt)

    # Then nothing is taken for quoted material
    assert words == prompt
