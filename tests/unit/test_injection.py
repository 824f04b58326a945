from continuity_core.recovery.fit import MAX_INJECTION_CHARS, TRUNCATION_MARKER, Section, assemble, fit


def test_text_that_fits_is_untouched() -> None:
    assert fit("short", 10) == "short"


def test_a_cut_is_visible_and_within_budget() -> None:
    cut = fit("x" * 5000, 2000)

    assert len(cut) <= 2000
    assert cut.endswith(TRUNCATION_MARKER)


def test_reserved_sections_keep_their_budget_when_others_are_large() -> None:
    recovery = Section("R" * 1500, reserved_chars=2000)
    other = Section("O" * 20_000)

    injected = assemble([recovery, other]).text

    assert injected is not None
    assert "R" * 1500 in injected
    assert len(injected) <= MAX_INJECTION_CHARS
    assert injected.endswith(TRUNCATION_MARKER)


def test_nothing_to_inject_is_none() -> None:
    assert assemble([Section("")]).text is None
