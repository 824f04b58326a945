import pytest

from continuity_core.config import ConfigError, ContinuityConfig, load_config, load_config_from_camel_case


def test_defaults_match_the_documented_values(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ContinuityConfig.model_fields:
        monkeypatch.delenv(f"CONTINUITY_{name.upper()}", raising=False)

    config = load_config()

    assert (
        config.enabled,
        config.prompt_interval,
        config.time_interval_ms,
        config.max_checkpoints_per_session,
        config.retention_days,
        config.recovery_budget_chars,
    ) == (True, 10, 900_000, 50, 7, 8000)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("CONTINUITY_PROMPT_INTERVAL", "0"),
        ("CONTINUITY_PROMPT_INTERVAL", "1001"),
        ("CONTINUITY_TIME_INTERVAL_MS", "59999"),
        ("CONTINUITY_TIME_INTERVAL_MS", "3600001"),
        ("CONTINUITY_MAX_CHECKPOINTS_PER_SESSION", "501"),
        ("CONTINUITY_RETENTION_DAYS", "91"),
        ("CONTINUITY_RECOVERY_BUDGET_CHARS", "199"),
        ("CONTINUITY_RECOVERY_BUDGET_CHARS", "lots"),
        ("CONTINUITY_ENABLED", "maybe"),
    ],
)
def test_a_bad_value_fails_with_a_message_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)

    with pytest.raises(ConfigError, match=variable):
        load_config()


def test_environment_values_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTINUITY_PROMPT_INTERVAL", "3")
    monkeypatch.setenv("CONTINUITY_ENABLED", "false")

    config = load_config()

    assert config.prompt_interval == 3
    assert config.enabled is False


def test_camel_case_settings_round_trip_through_the_environment() -> None:
    config = load_config_from_camel_case({"promptInterval": 7, "recoveryBudgetChars": 500})

    assert config.prompt_interval == 7
    assert load_config(dict(config.model_dump())).recovery_budget_chars == 500
    assert config.to_environment()["CONTINUITY_PROMPT_INTERVAL"] == "7"


def test_an_unknown_camel_case_setting_is_refused() -> None:
    with pytest.raises(ConfigError, match="prompt_intervall"):
        load_config_from_camel_case({"promptIntervall": 7})
