"""The operator: tenants and the whole fleet's health, with the deployment's AWS credentials.

    python -m infra.operator --stage prod tenant create alice [--name ops] [--expires 30d]
    python -m infra.operator --stage prod tenant admin alice     # another admin token of a tenant
    python -m infra.operator --stage prod tenant list | tokens | health [--json] | migrate-tokens
    python -m infra.operator --local [--data-dir D] ...      # the running local stack (its moto)
    continuity operator ...                                  # the same, from the development install

Not an API route on purpose: a bearer token of any tenant, admins included, reaches only its own
agent; creating a tenant and reading every tenant's traffic need the credentials that can write the
table (the deploy role), which no request through API Gateway carries. So this runs the service's
own rules (``admin/tokens.py``'s ``TenantService``, ``admin/health.py``) against the table and the
queues directly, and there is no route to attack (docs/SECURITY.md, principals and scopes).

``tenant create`` prints the new tenant's admin token once, as the last line of stdout (for
scripts); that admin then creates the agent's other tokens (``continuity token create``).
Exit status: 0 done, 1 refused or failed, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from infra.outputs import (
    CHECKPOINT_DLQ_URL,
    CHECKPOINT_QUEUE_URL,
    TABLE_NAME,
    OutputsError,
    describe_outputs,
    read_outputs_file,
    require,
)

if TYPE_CHECKING:
    from continuity_core.admin.dynamo_tokens import DynamoTokenStore
    from continuity_core.admin.health import HealthReader
    from continuity_core.admin.tokens import TenantService


@dataclass(frozen=True)
class Target:
    """The deployment's table and checkpoint queues."""

    table: str
    queue_url: str
    dlq_url: str


class Operator:
    """The operator's commands over one deployment's storage."""

    def __init__(self, target: Target) -> None:
        from continuity_core.admin.dynamo_health import AwsHealthSource
        from continuity_core.admin.dynamo_tokens import DynamoTokenStore
        from continuity_core.admin.health import HealthReader
        from continuity_core.admin.tokens import TenantService
        from continuity_core.kernel.clock import utc_now

        self.store: DynamoTokenStore = DynamoTokenStore(target.table)
        self.tenants: TenantService = TenantService(self.store, utc_now)
        source = AwsHealthSource(target.table, target.queue_url, target.dlq_url)
        self.health: HealthReader = HealthReader(self.store, source, utc_now)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="continuity operator", description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--stage", help="a deployed stage (its stack's outputs name the table and queues)")
    where.add_argument("--local", action="store_true", help="the running local stack")
    where.add_argument("--table", help="the table's name (with --queue-url and --dlq-url)")
    parser.add_argument("--outputs-file", type=Path, help="with --stage: `cdk deploy --outputs-file`'s file")
    parser.add_argument("--data-dir", type=Path, help="with --local: the stack's data directory")
    parser.add_argument("--queue-url", help="with --table: the checkpoint queue")
    parser.add_argument("--dlq-url", help="with --table: its dead-letter queue")
    commands = parser.add_subparsers(dest="command", required=True)
    tenant = commands.add_parser("tenant", help="create or list tenants (agent ids)")
    tenant_commands = tenant.add_subparsers(dest="tenant_command", required=True)
    create = tenant_commands.add_parser("create", help="a new agent and its first admin token")
    create.add_argument("agent_id")
    create.add_argument("--name", help="a label for the admin token")
    create.add_argument("--expires", help="the admin token's lifetime, e.g. 30d (default: none)")
    create.add_argument("--json", action="store_true", help="print the whole record as JSON")
    admin = tenant_commands.add_parser("admin", help="another admin token of an existing tenant")
    admin.add_argument("agent_id")
    admin.add_argument("--name", help="a label for the admin token")
    admin.add_argument("--expires", help="the admin token's lifetime, e.g. 30d (default: none)")
    admin.add_argument("--json", action="store_true", help="print the whole record as JSON")
    tenant_commands.add_parser("list", help="every tenant's agent id")
    commands.add_parser("tokens", help="every tenant's tokens (never their secrets)")
    health = commands.add_parser("health", help="the fleet's health: every tenant's traffic")
    health.add_argument("--json", action="store_true")
    commands.add_parser(
        "migrate-tokens", help="move token items of the version before tenant admins under their agents"
    )
    return parser


def main(argv: list[str] | None = None, operator: Operator | None = None) -> int:
    args = build_parser().parse_args(argv)
    if operator is None:
        try:
            operator = Operator(resolve_target(args))
        except (OutputsError, ValueError, OSError) as error:
            sys.stderr.write(f"continuity operator: {error}\n")
            return 2
    return run(args, operator)


def run(args: argparse.Namespace, operator: Operator) -> int:
    from continuity_core.admin.tokens import TenantExistsError, UnknownTenantError

    if args.command == "tenant" and args.tenant_command == "list":
        print("\n".join(operator.tenants.tenants()))
        return 0
    if args.command == "tenant":
        make = (
            operator.tenants.create_tenant if args.tenant_command == "create" else operator.tenants.add_admin
        )
        try:
            created = make(args.agent_id, args.name, days(args.expires))
        except (TenantExistsError, UnknownTenantError, ValueError) as error:
            sys.stderr.write(f"continuity operator: {error}\n")
            return 1
        if args.json:
            print(created.model_dump_json(indent=2))
        else:
            print(f"tenant {created.agent_id}: admin token {created.token_id}, its secret shown once below")
            print(created.token)  # last line: the secret, for scripts
        return 0
    if args.command == "tokens":
        for token in operator.tenants.tokens():
            state = "revoked" if token.revoked_at else f"expires {token.expires_at or 'never'}"
            print(f"{token.token_id}  agent={token.agent_id}  scopes={','.join(token.scopes)}  {state}")
        return 0
    if args.command == "health":
        answer = operator.health.fleet()
        if args.json:
            print(answer.model_dump_json(indent=2))
            return 0
        minutes = answer.requests_per_minute
        print(f"tenants: {len(operator.tenants.tenants())}")
        print(
            f"requests in the last {len(minutes)} minutes: {sum(m.requests for m in minutes)} "
            f"(4xx {sum(m.client_errors for m in minutes)}, 5xx {sum(m.server_errors for m in minutes)})"
        )
        print(
            f"checkpoint queue: {answer.checkpoint_queue.visible} waiting, "
            f"dead-letter queue: {answer.dead_letter_queue.visible}"
        )
        print(f"pruned before: {answer.pruner.pruned_before or 'never ran'}")
        return 0
    moved = operator.store.migrate_legacy()
    print(f"moved {moved} token item(s) under their agents")
    return 0


def days(text: str | None) -> int | None:
    """``30d`` -> 30; None stays None."""
    if text is None:
        return None
    number = text.strip().removesuffix("d")
    if not number.isdigit() or int(number) < 1:
        raise ValueError(f"expected a number of days like 30d, got {text!r}")
    return int(number)


def resolve_target(args: argparse.Namespace) -> Target:
    """The table and queues: a stage's stack outputs (the ambient AWS credentials: the deploy
    role), the running local stack's (its moto, fake credentials), or given outright."""
    if args.table:
        if not (args.queue_url and args.dlq_url):
            raise ValueError("--table needs --queue-url and --dlq-url")
        return Target(args.table, args.queue_url, args.dlq_url)
    if args.local:
        return local_target(args.data_dir)
    if args.outputs_file:
        outputs = read_outputs_file(args.outputs_file, args.stage)
    else:
        import boto3

        outputs = describe_outputs(args.stage, boto3.client("cloudformation"))
    return Target(
        require(outputs, TABLE_NAME, args.stage),
        require(outputs, CHECKPOINT_QUEUE_URL, args.stage),
        require(outputs, CHECKPOINT_DLQ_URL, args.stage),
    )


def local_target(data_dir: Path | None) -> Target:
    """The running local stack's storage: its moto endpoint from its data directory, the names its
    provisioning gives (this process's AWS calls go to that moto only, with fake credentials)."""
    import boto3

    from infra.local.environment import DEFAULT_DATA_DIR, LOCAL_ENDPOINT_FILE, use_fake_aws
    from infra.local.provision import physical_name
    from infra.wiring import CHECKPOINT_QUEUE, CONTINUITY_TABLE

    path = (data_dir or DEFAULT_DATA_DIR).expanduser() / LOCAL_ENDPOINT_FILE
    try:
        endpoint = path.read_text().strip()
    except FileNotFoundError:
        raise OSError(f"no local stack is running on {path.parent} (start it: make run)") from None
    use_fake_aws(endpoint)
    queue = physical_name(CHECKPOINT_QUEUE.key)
    sqs = boto3.client("sqs")
    return Target(
        physical_name(CONTINUITY_TABLE.key),
        sqs.get_queue_url(QueueName=queue)["QueueUrl"],
        sqs.get_queue_url(QueueName=f"{queue}-dlq")["QueueUrl"],
    )


if __name__ == "__main__":
    sys.exit(main())
