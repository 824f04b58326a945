"""``make deploy`` / ``deploy-dry`` / ``destroy`` / ``bootstrap``: the pinned CDK CLI, one stack per stage.

    python -m infra.deploy deploy --stage dev [--ephemeral] [--token-sha256 HEX] [--dry-run]
    python -m infra.deploy destroy --stage pr-42 [--force] [--dry-run]
    python -m infra.deploy bootstrap [--dry-run]

``deploy`` runs ``cdk deploy Continuity-{stage}`` with ``-c stage=…`` and ``-c apiTokenSha256=…``
(the authorizer's bootstrap admin token), writes the stack outputs to
``build/deploy/outputs-{stage}.json`` and prints the ``continuity login`` / ``continuity token
create`` / ``continuity operator`` lines for the deployed ``ApiUrl``. The bootstrap token (the
``default`` agent's admin) comes from the environment (``CONTINUITY_BOOTSTRAP_TOKEN``, which
``make deploy TOKEN=…`` sets; never on a command line, where ``ps`` would show it), or only its hash
is given (``--token-sha256``, keeps the current token on an upgrade), or a random one is generated
and printed once.

``--dry-run`` prints the exact commands and touches nothing (no AWS call, no token generated).
See docs/DEPLOY.md.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra.local.environment import token_sha256
from infra.outputs import API_URL, TOKEN_HASH_PATTERN, OutputsError, read_outputs_file, require, stack_name

REPO_ROOT = Path(__file__).resolve().parent.parent
# The Makefile passes its own CDK_CLI (the one `make synth` uses); a unit test keeps the two equal.
CDK_CLI = "aws-cdk@2.1148.1"
TOKEN_ENV = "CONTINUITY_BOOTSTRAP_TOKEN"
OUTPUTS_DIR = REPO_ROOT / "build" / "deploy"
APPROVALS = ("never", "any-change", "broadening")
HASH_PLACEHOLDER = "<sha256 of a token generated at deploy time>"
DEFAULT_AGENT_HINT = "<agent-name>"


@dataclass(frozen=True)
class DeployPlan:
    stage: str
    token_sha256: str  # or HASH_PLACEHOLDER in a dry run that would generate the token
    ephemeral: bool | None = None  # None: cdk.json's stages.<stage>.ephemeral decides (default false)
    require_approval: str = "broadening"  # the CDK default: ask before IAM/security-group widening
    profile: str | None = None
    cdk_cli: str = CDK_CLI

    @property
    def stack(self) -> str:
        return stack_name(self.stage)

    @property
    def outputs_file(self) -> Path:
        return OUTPUTS_DIR / f"outputs-{self.stage}.json"


def cdk(cli: str = CDK_CLI) -> list[str]:
    return ["npx", "--yes", cli]


def _profile(profile: str | None) -> list[str]:
    return ["--profile", profile] if profile else []


def deploy_command(plan: DeployPlan) -> list[str]:
    context = ["-c", f"stage={plan.stage}", "-c", f"apiTokenSha256={plan.token_sha256}"]
    if plan.ephemeral is not None:
        context += ["-c", f"ephemeral={'true' if plan.ephemeral else 'false'}"]
    return [
        *cdk(plan.cdk_cli),
        "deploy",
        plan.stack,
        *context,
        "--outputs-file",
        str(plan.outputs_file),
        "--require-approval",
        plan.require_approval,
        *_profile(plan.profile),
    ]


def destroy_command(
    stage: str, *, force: bool = False, profile: str | None = None, cdk_cli: str = CDK_CLI
) -> list[str]:
    # The app is synthesized to find the stack, so it needs the stage; the token is irrelevant here.
    return [
        *cdk(cdk_cli),
        "destroy",
        stack_name(stage),
        "-c",
        f"stage={stage}",
        *(["--force"] if force else []),
        *_profile(profile),
    ]


def bootstrap_command(stage: str, *, profile: str | None = None, cdk_cli: str = CDK_CLI) -> list[str]:
    return [*cdk(cdk_cli), "bootstrap", "-c", f"stage={stage}", *_profile(profile)]


def generate_token() -> str:
    return secrets.token_urlsafe(32)


def resolve_token(
    environ: dict[str, str], token_sha256_arg: str | None, *, dry_run: bool
) -> tuple[str | None, str]:
    """(token to print or None, its sha256): the given token, the given hash, or a generated token
    (in a dry run, only a placeholder hash). Raises ValueError on a malformed hash or a clash."""
    token = (environ.get(TOKEN_ENV) or "").strip()
    digest = (token_sha256_arg or "").strip().lower()
    if token and digest:
        raise ValueError(f"give either {TOKEN_ENV} (TOKEN=…) or --token-sha256 (TOKEN_SHA256=…), not both")
    if digest:
        if not TOKEN_HASH_PATTERN.fullmatch(digest):
            raise ValueError("--token-sha256 must be 64 hex characters (sha256 of the token)")
        return None, digest
    if token:
        return token, token_sha256(token)
    if dry_run:
        return None, HASH_PLACEHOLDER
    token = generate_token()
    return token, token_sha256(token)


def next_steps(
    url: str,
    token: str | None,
    *,
    stage: str = "<stage>",
    agent: str = DEFAULT_AGENT_HINT,
    placeholder: str = "<your bootstrap token>",
) -> list[str]:
    """The bootstrap token is the ``default`` agent's admin; another agent (a tenant) gets its first
    admin token from the operator, with the deploy role's credentials (docs/SECURITY.md)."""
    shown = token or placeholder
    return [
        f"continuity login --url {url} --token {shown}",
        "continuity token create --scopes hooks,read    # a token of the default agent",
        f"continuity operator --stage {stage} tenant create {agent}    # another agent: its admin token",
        f"continuity operator --stage {stage} migrate-tokens    # once, upgrading from before tenant admins",
        f"make migrate-project-keys STAGE={stage}    # once, upgrading from path-keyed projects",
    ]


def _print_command(command: Sequence[str]) -> None:
    print(f"$ {shlex.join(command)}", flush=True)


def _run(command: Sequence[str]) -> int:
    _print_command(command)
    return subprocess.run(list(command), cwd=REPO_ROOT, check=False).returncode


# --------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------


def deploy(args: argparse.Namespace, environ: dict[str, str]) -> int:
    token, digest = resolve_token(environ, args.token_sha256, dry_run=args.dry_run)
    generated = token is not None and not (environ.get(TOKEN_ENV) or "").strip()
    plan = DeployPlan(
        stage=args.stage,
        token_sha256=digest,
        ephemeral=True if args.ephemeral else None,
        require_approval=args.require_approval,
        profile=args.profile,
        cdk_cli=args.cdk_cli,
    )
    command = deploy_command(plan)
    if args.dry_run:
        print(f"dry run: would deploy {plan.stack}")
        _print_command(command)
        print("then print, with the ApiUrl from the outputs file:")
        generating = digest == HASH_PLACEHOLDER
        placeholder = "<the token the deploy generates>" if generating else "<your bootstrap token>"
        for line in next_steps("<ApiUrl>", token, stage=plan.stage, placeholder=placeholder):
            print(f"  {line}")
        return 0

    plan.outputs_file.parent.mkdir(parents=True, exist_ok=True)
    code = _run(command)
    if code != 0:
        print(f"deploy: cdk deploy failed (exit status {code}).", file=sys.stderr)
        if generated:
            print(
                "deploy: the generated token was not printed: unless the stack update completed, the "
                "previous bootstrap token still applies (else deploy again for a new one)",
                file=sys.stderr,
            )
        return code
    try:
        url = require(read_outputs_file(plan.outputs_file, plan.stage), API_URL, plan.stage)
    except OutputsError as error:
        print(f"deploy: {plan.stack} deployed, but {error}", file=sys.stderr)
        url = "<ApiUrl>"
    print()
    print(f"{plan.stack} deployed.")
    print(f"API URL: {url}")
    if generated:
        print("Bootstrap admin token (generated now, shown once; it replaces any previous one):")
        print(f"  {token}")
    elif token is None:
        print("Bootstrap admin token: the one whose sha256 you gave (--token-sha256)")
    print("Log in as the default agent's admin, then give each agent its own token:")
    for line in next_steps(url, token, stage=plan.stage):
        print(f"  {line}")
    print(f"Smoke test: make smoke URL={url} TOKEN=<token>")
    return 0


def destroy(args: argparse.Namespace, cloudformation: Any | None = None) -> int:
    command = destroy_command(args.stage, force=args.force, profile=args.profile, cdk_cli=args.cdk_cli)
    if args.dry_run:
        print(f"dry run: would destroy {stack_name(args.stage)}")
        _print_command(command)
        return 0
    try:
        kept = retained_resources(args.stage, cloudformation or _cloudformation(args.profile))
    except OutputsError as error:
        print(f"destroy: {error}", file=sys.stderr)
        return 1
    if kept:
        print(f"{stack_name(args.stage)} was not deployed ephemeral; destroying it keeps (RETAIN):")
        for logical_id, kind in kept:
            print(f"  {kind}  {logical_id}")
        print("To delete those too: make deploy STAGE=… EPHEMERAL=1 first, then make destroy.")
    return _run(command)


def retained_resources(stage: str, cloudformation: Any) -> list[tuple[str, str]]:
    """(logical id, type) of the deployed stack's resources whose DeletionPolicy keeps them."""
    from botocore.exceptions import ClientError

    try:
        body = cloudformation.get_template(StackName=stack_name(stage), TemplateStage="Original")[
            "TemplateBody"
        ]
    except ClientError as error:
        raise OutputsError(f"cannot read the template of {stack_name(stage)}: {error}") from error
    template = body if isinstance(body, dict) else _parse_template(body)
    return sorted(
        (logical_id, str(resource.get("Type")))
        for logical_id, resource in (template.get("Resources") or {}).items()
        if resource.get("DeletionPolicy") in ("Retain", "RetainExceptOnCreate")
    )


def _parse_template(body: str) -> dict[str, Any]:
    import json

    parsed = json.loads(body)  # CDK templates are JSON
    return parsed if isinstance(parsed, dict) else {}


def _cloudformation(profile: str | None) -> Any:
    import boto3

    return boto3.session.Session(profile_name=profile).client("cloudformation")


def bootstrap(args: argparse.Namespace) -> int:
    command = bootstrap_command(args.stage, profile=args.profile, cdk_cli=args.cdk_cli)
    if args.dry_run:
        print("dry run: would bootstrap the account/region of your AWS credentials")
        _print_command(command)
        return 0
    return _run(command)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m infra.deploy", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--stage", default="dev", help="stage name; the stack is Continuity-{stage}")
        sub.add_argument("--profile", help="AWS named profile for the CDK CLI")
        sub.add_argument("--cdk-cli", default=CDK_CLI, help=f"npm package of the CDK CLI (default {CDK_CLI})")
        sub.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")

    deploy_parser = commands.add_parser("deploy", help="deploy a stage and print the login lines")
    common(deploy_parser)
    deploy_parser.add_argument(
        "--ephemeral", action="store_true", help="a dev stage: tables, bucket and logs go with the stack"
    )
    deploy_parser.add_argument("--token-sha256", help="sha256 hex of the bootstrap token to keep (upgrade)")
    deploy_parser.add_argument("--require-approval", choices=APPROVALS, default="broadening")
    destroy_parser = commands.add_parser("destroy", help="delete a stage's stack")
    common(destroy_parser)
    destroy_parser.add_argument("--force", action="store_true", help="do not ask cdk for confirmation")
    common(commands.add_parser("bootstrap", help="cdk bootstrap the account/region (once)"))
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, environ: dict[str, str] | None = None) -> int:
    args = parse_args(argv)
    env = dict(os.environ if environ is None else environ)
    try:
        stack_name(args.stage)  # validates the stage before anything runs
        if args.command == "deploy":
            return deploy(args, env)
        if args.command == "destroy":
            return destroy(args)
        return bootstrap(args)
    except ValueError as error:
        print(f"{args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
