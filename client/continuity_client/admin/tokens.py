"""``continuity token create|list|revoke``: your agent's tokens, over the service's admin API.

Needs an admin token of the agent (the deployment's bootstrap token is the ``default`` agent's;
``continuity operator tenant create`` gives a new agent its first). An admin manages its own agent's
tokens only. The new token's secret is printed once, as the last line of stdout, so scripts can
capture it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.parse

from continuity_client.hook import transport
from continuity_client.hook.delivery import describe_error
from continuity_client.setup import config

TIMEOUT_S = 10.0
TOKEN_PREFIX = "ctn_"  # what the service's tokens start with (continuity_core/admin/tokens.py)
TOKEN_ID_MAX = 32  # ids are 16 hex characters; a secret is much longer
_DURATION = re.compile(r"^(\d+)d$")


def parse_days(text: str) -> int:
    match = _DURATION.match(text.strip())
    if not match or int(match.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"expected a number of days like 30d, got {text!r}")
    return int(match.group(1))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="continuity token", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create", help="create a token (its secret is shown once)")
    create.add_argument(
        "--agent",
        help="the agent id the token acts as: the admin token's own (the default and the only one allowed)",
    )
    create.add_argument("--scopes", default="hooks,read", help="comma separated: hooks, read, admin")
    create.add_argument("--expires", type=parse_days, help="lifetime, e.g. 30d (default: none)")
    create.add_argument("--name", help="a label, e.g. the machine")
    create.add_argument("--json", action="store_true", help="print the whole record as JSON")
    listing = commands.add_parser("list", help="list tokens (never their secrets)")
    listing.add_argument("--json", action="store_true")
    revoke = commands.add_parser("revoke", help="revoke a token by id")
    revoke.add_argument("token_id")
    for sub in (create, listing, revoke):
        sub.add_argument("--url", help="service URL (default: from `continuity login`)")
        sub.add_argument("--token", dest="admin_token", help="admin token (default: from `continuity login`)")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    settings = config.load()
    url = (args.url or settings.url).rstrip("/")
    admin = args.admin_token or settings.token
    if not url or not admin:
        sys.stderr.write("continuity token: no service URL or admin token; run `continuity login` first\n")
        return 1
    if args.command == "create":
        body: dict = {"scopes": [s.strip() for s in args.scopes.split(",") if s.strip()]}
        if args.agent:
            body["agent_id"] = args.agent
        if args.expires:
            body["expires_in_days"] = args.expires
        if args.name:
            body["name"] = args.name
        status, answer = call("POST", url, "/api/tokens", admin, body)
        if status != 201:
            return fail(status, answer)
        print(json.dumps(answer, indent=2) if args.json else _describe(answer))
        if not args.json:
            print(answer["token"])  # last line: the secret, for scripts
        return 0
    if args.command == "list":
        status, answer = call("GET", url, "/api/tokens", admin)
        if status != 200:
            return fail(status, answer)
        if args.json:
            print(json.dumps(answer, indent=2))
        for record in [] if args.json else answer["tokens"]:
            print(_describe(record))
        return 0
    if looks_like_a_token(args.token_id, admin):
        sys.stderr.write(
            "continuity token revoke: that is a token (its secret), not its id: revoke takes the id "
            "that `continuity token list` shows (16 characters); nothing revoked\n"
        )
        return 1
    status, answer = call("DELETE", url, f"/api/tokens/{urllib.parse.quote(args.token_id, safe='')}", admin)
    if status == 404 and "error" in answer:
        sys.stderr.write(
            f"continuity token revoke: no token with id {args.token_id!r}; "
            "`continuity token list` shows the ids\n"
        )
        return 1
    if status != 200:
        return fail(status, answer)
    print(f"revoked {answer['token_id']} (agent {answer['agent_id']})")
    return 0


def call(method: str, url: str, path: str, token: str, body: object = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    try:
        response = transport.request(method, url, path, data, headers, TIMEOUT_S)
    except transport.TransportError as error:
        return 0, {"detail": str(error)}
    try:
        return response.status, json.loads(response.body or b"{}")
    except ValueError:
        return response.status, {"detail": response.body.decode(errors="replace")[:200]}


def looks_like_a_token(text: str, admin: str) -> bool:
    """A secret where an id belongs: ours start with ``ctn_``; ids are 16 hex characters."""
    return text.startswith(TOKEN_PREFIX) or text == admin or len(text) > TOKEN_ID_MAX


def fail(status: int, answer: dict) -> int:
    if not status:
        reason = f"service unreachable: {answer.get('detail')}"
    else:
        raw = json.dumps(answer).encode()
        reason = describe_error(status, answer, raw)
    sys.stderr.write(f"continuity token: {reason}\n")
    return 1


def _describe(record: dict) -> str:
    state = "revoked" if record.get("revoked_at") else f"expires {record.get('expires_at') or 'never'}"
    return (
        f"{record['token_id']}  agent={record['agent_id']}  scopes={','.join(record['scopes'])}  "
        f"{state}  {record.get('name') or ''}".rstrip()
    )
