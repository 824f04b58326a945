"""`make deploy` / `deploy-dry` / `destroy`: the exact CDK commands, the token, the printed next steps."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from infra import deploy
from infra.deploy import DeployPlan

ROOT = Path(__file__).resolve().parents[2]
HASH = "a" * 64


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture(autouse=True)
def outputs_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(deploy, "OUTPUTS_DIR", tmp_path)
    return tmp_path


class FakeCdk:
    """Stands in for subprocess.run: records the command, writes the outputs file like cdk does."""

    def __init__(self, outputs_dir: Path, returncode: int = 0, api_url: str = "https://abc.example/") -> None:
        self.outputs_dir = outputs_dir
        self.returncode = returncode
        self.api_url = api_url
        self.commands: list[list[str]] = []

    def __call__(self, command: list[str], **_: Any) -> Any:
        self.commands.append(command)
        if self.returncode == 0 and "deploy" in command:
            stage = next(c.split("=", 1)[1] for c in command if c.startswith("stage="))
            document = {f"Continuity-{stage}": {"ApiUrl": self.api_url, "TableName": "t"}}
            (self.outputs_dir / f"outputs-{stage}.json").write_text(json.dumps(document))
        return type("Completed", (), {"returncode": self.returncode})()


@pytest.fixture
def fake_cdk(outputs_in_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> FakeCdk:
    fake = FakeCdk(outputs_in_tmp)
    monkeypatch.setattr(deploy.subprocess, "run", fake)
    return fake


def context_value(command: list[str], key: str) -> str:
    return next(c.split("=", 1)[1] for c in command if c.startswith(f"{key}="))


def test_the_deploy_command_pins_the_cli_and_passes_stage_token_and_outputs_file(
    outputs_in_tmp: Path,
) -> None:
    plan = DeployPlan(stage="prod", token_sha256=HASH)

    command = deploy.deploy_command(plan)

    assert command == [
        "npx",
        "--yes",
        "aws-cdk@2.1148.1",
        "deploy",
        "Continuity-prod",
        "-c",
        "stage=prod",
        "-c",
        f"apiTokenSha256={HASH}",
        "--outputs-file",
        str(outputs_in_tmp / "outputs-prod.json"),
        "--require-approval",
        "broadening",
    ]


def test_an_ephemeral_deploy_says_so_in_the_context_and_a_profile_is_passed_on() -> None:
    plan = DeployPlan(stage="pr-42", token_sha256=HASH, ephemeral=True, profile="dev-account")

    command = deploy.deploy_command(plan)

    assert command[command.index("-c", 8) : command.index("-c", 8) + 2] == ["-c", "ephemeral=true"]
    assert command[-2:] == ["--profile", "dev-account"]


def test_the_makefile_pins_the_same_cdk_cli() -> None:
    makefile = (ROOT / "Makefile").read_text()

    pinned = re.search(r"^CDK_CLI := (\S+)$", makefile, re.M)
    assert pinned is not None and pinned[1] == deploy.CDK_CLI


def test_a_dry_run_prints_the_command_and_runs_nothing(
    fake_cdk: FakeCdk, capsys: pytest.CaptureFixture[str]
) -> None:
    code = deploy.main(["deploy", "--stage", "dev", "--dry-run"], environ={})

    out = capsys.readouterr().out
    assert code == 0 and fake_cdk.commands == []
    assert "$ npx --yes aws-cdk@2.1148.1 deploy Continuity-dev -c stage=dev" in out
    assert "'apiTokenSha256=<sha256 of a token generated at deploy time>'" in out
    assert "continuity login --url <ApiUrl>" in out


def test_a_dry_run_with_a_token_shows_its_hash(fake_cdk: FakeCdk, capsys: pytest.CaptureFixture[str]) -> None:
    code = deploy.main(["deploy", "--stage", "dev", "--dry-run"], environ={deploy.TOKEN_ENV: "s3cret"})

    assert code == 0
    assert f"apiTokenSha256={sha256('s3cret')}" in capsys.readouterr().out


def test_deploy_generates_a_token_passes_its_hash_and_prints_the_login_lines(
    fake_cdk: FakeCdk, capsys: pytest.CaptureFixture[str]
) -> None:
    code = deploy.main(["deploy", "--stage", "dev"], environ={})

    out = capsys.readouterr().out
    (command,) = fake_cdk.commands
    login = re.search(r"continuity login --url https://abc\.example/ --token (\S+)", out)
    assert code == 0 and login
    assert context_value(command, "apiTokenSha256") == sha256(login[1])
    assert "continuity token create --scopes hooks,read" in out
    assert "continuity operator --stage dev tenant create <agent-name>" in out
    assert "shown once" in out


def test_deploy_with_a_given_token_uses_it(fake_cdk: FakeCdk, capsys: pytest.CaptureFixture[str]) -> None:
    code = deploy.main(["deploy", "--stage", "dev"], environ={deploy.TOKEN_ENV: "mine"})

    out = capsys.readouterr().out
    assert code == 0
    assert context_value(fake_cdk.commands[0], "apiTokenSha256") == sha256("mine")
    assert "--token mine" in out and "generated" not in out


def test_an_upgrade_can_keep_the_token_by_its_hash(
    fake_cdk: FakeCdk, capsys: pytest.CaptureFixture[str]
) -> None:
    code = deploy.main(["deploy", "--stage", "dev", "--token-sha256", HASH.upper()], environ={})

    assert code == 0
    assert context_value(fake_cdk.commands[0], "apiTokenSha256") == HASH
    assert "--token <your bootstrap token>" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "environ", "message"),
    [
        (["deploy", "--stage", "Prod"], {}, "invalid stage"),
        (["deploy", "--token-sha256", "abc"], {}, "64 hex"),
        (["deploy", "--token-sha256", HASH], {deploy.TOKEN_ENV: "t"}, "not both"),
    ],
    ids=["bad-stage", "bad-hash", "token-and-hash"],
)
def test_bad_arguments_stop_before_cdk_runs(
    fake_cdk: FakeCdk,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    environ: dict[str, str],
    message: str,
) -> None:
    code = deploy.main(argv, environ=environ)

    assert code == 2 and fake_cdk.commands == []
    assert message in capsys.readouterr().err


def test_a_failed_deploy_passes_cdks_status_on_and_prints_no_token(
    fake_cdk: FakeCdk, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_cdk.returncode = 3

    code = deploy.main(["deploy", "--stage", "dev"], environ={})

    captured = capsys.readouterr()
    assert code == 3
    assert "continuity login" not in captured.out
    assert "cdk deploy failed" in captured.err


def test_destroy_dry_run_prints_the_destroy_command(
    fake_cdk: FakeCdk, capsys: pytest.CaptureFixture[str]
) -> None:
    code = deploy.main(["destroy", "--stage", "pr-42", "--dry-run", "--force"], environ={})

    assert code == 0 and fake_cdk.commands == []
    assert (
        "$ npx --yes aws-cdk@2.1148.1 destroy Continuity-pr-42 -c stage=pr-42 --force"
        in capsys.readouterr().out
    )


def test_bootstrap_dry_run_prints_the_bootstrap_command(capsys: pytest.CaptureFixture[str]) -> None:
    code = deploy.main(["bootstrap", "--dry-run", "--profile", "p"], environ={})

    assert code == 0
    assert "$ npx --yes aws-cdk@2.1148.1 bootstrap -c stage=dev --profile p" in capsys.readouterr().out


@pytest.mark.usefixtures("aws")
def test_destroy_lists_what_a_retained_stage_keeps_then_runs_cdk(
    fake_cdk: FakeCdk, capsys: pytest.CaptureFixture[str]
) -> None:
    import boto3

    template = {
        "Resources": {
            "Table": {"Type": "AWS::SQS::Queue", "DeletionPolicy": "Retain"},
            "Topic": {"Type": "AWS::SNS::Topic", "DeletionPolicy": "Delete"},
        }
    }
    cloudformation = boto3.client("cloudformation")
    cloudformation.create_stack(StackName="Continuity-dev", TemplateBody=json.dumps(template))
    args = deploy.parse_args(["destroy", "--stage", "dev"])

    code = deploy.destroy(args, cloudformation)

    out = capsys.readouterr().out
    assert code == 0
    assert "AWS::SQS::Queue  Table" in out and "Topic" not in out
    assert fake_cdk.commands[0][3:5] == ["destroy", "Continuity-dev"]


@pytest.mark.parametrize(
    ("target", "variables", "expected"),
    [
        (
            "deploy",
            ["STAGE=prod", "EPHEMERAL=1"],
            "-m infra.deploy deploy --stage prod --cdk-cli aws-cdk@2.1148.1",
        ),
        ("deploy-dry", ["STAGE=qa"], "--dry-run"),
        ("destroy", ["STAGE=pr-1", "FORCE=1"], "-m infra.deploy destroy --stage pr-1"),
        (
            "bootstrap",
            ["PROFILE=p"],
            "-m infra.deploy bootstrap --stage dev --cdk-cli aws-cdk@2.1148.1 --profile p",
        ),
        ("smoke", ["URL=http://x", "TOKEN=t"], "-m infra.smoke"),
        ("redrive", ["STAGE=prod"], "-m infra.redrive --stage prod"),
        (
            "redrive",
            ["LOCAL=1", "MOTO_URL=http://127.0.0.1:5001"],
            "--local --endpoint-url http://127.0.0.1:5001",
        ),
    ],
)
def test_the_make_targets_run_the_tools(target: str, variables: list[str], expected: str) -> None:
    import subprocess

    recipe = subprocess.run(
        ["make", "-n", target, *variables],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert recipe.returncode == 0, recipe.stderr
    assert expected in " ".join(recipe.stdout.split())
