import pytest

from continuity_core.kernel.config import (
    ConfigError,
    ContinuityConfig,
    environment_variable,
    load_config,
    load_config_from_camel_case,
)
from infra import config_table


def test_defaults_match_the_documented_values(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ContinuityConfig.model_fields:
        monkeypatch.delenv(environment_variable(name), raising=False)

    config = load_config()

    assert (
        config.enabled,
        config.prompt_interval,
        config.time_interval_ms,
        config.max_checkpoints_per_session,
        config.retention_days,
        config.recovery_budget_chars,
    ) == (True, 10, 900_000, 50, 7, 4000)


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
        ("CONTINUITY_RECOVERY_WINDOW_HOURS", "0"),
        ("CONTINUITY_RECOVERY_WINDOW_HOURS", "168.5"),
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


def test_the_readme_configuration_table_is_the_one_generated_from_the_model() -> None:
    readme = config_table.README.read_text(encoding="utf-8")

    assert config_table.render(readme) == readme, "run: python -m infra.config_table"


def test_the_generated_table_says_each_bound_as_the_model_checks_it() -> None:
    rows = {line.split("|")[1].strip(): line for line in config_table.table().splitlines()[2:]}

    assert "| 1\N{EN DASH}1000 |" in rows["`promptInterval`"]  # both inclusive
    assert "| > 0, \N{LESS-THAN OR EQUAL TO} 168 |" in rows["`recoveryWindowHours`"]  # 0 is refused
    assert "| `true` | |" in rows["`enabled`"]  # a flag has no range
    assert len(rows) == len(ContinuityConfig.model_fields)
