"""Runs each function under the grant CDK synthesizes for it: a botocore guard on every AWS call.

moto does not check IAM, so a call a function's role does not allow passes every test and fails
on AWS with AccessDeniedException. The guard closes that gap: while a function runs
(``running_as``), each botocore call it makes is mapped to the IAM requests AWS would authorize
(action, resource ARN, ``dynamodb:LeadingKeys``) and evaluated against the function's role policy
as synthesized (``access_policies``). A call outside the grant raises :class:`AccessDenied`, a
``ClientError`` with AWS's error code, naming the function, the action and the resource; the
denial is also recorded (``take_denials``) so a caller that swallows errors cannot hide it.

Calls made outside any function (test set-up, provisioning, the local stack's own plumbing) are
not checked, nor are functions the policies do not know (the local stack's tests use fakes).

Evaluation follows IAM for what the template holds: an explicit Deny wins, else some Allow must
match; actions match case-insensitively, resources case-sensitively, both with ``*`` and ``?``;
conditions with the String operators and the ForAllValues / ForAnyValue qualifiers on
``dynamodb:LeadingKeys``. Anything else in a policy is refused when the guard is built, so a new
kind of grant cannot be silently ignored.
"""

from __future__ import annotations

import contextvars
import logging
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlparse

from botocore.exceptions import ClientError

from infra.local.access_policies import BUCKET, QUEUE, TABLE, StackAccess, Statement
from infra.local.events import ACCOUNT_ID, REGION
from infra.wiring import FunctionSpec

log = logging.getLogger(__name__)

LEADING_KEYS = "dynamodb:LeadingKeys"
LOG_MARK = "access guard denied:"  # starts each denial's log line (the e2e tests look for it)
_OPERATORS = ("StringEquals", "StringNotEquals", "StringLike", "StringNotLike")
_QUALIFIERS = ("", "ForAllValues:", "ForAnyValue:")
_CONDITION_KEYS = (LEADING_KEYS,)


@dataclass(frozen=True)
class Request:
    """One authorization AWS makes for a call (a transaction or a batch makes several)."""

    action: str
    resource: str
    # The partition keys the request touches; None when the guard cannot tell (a condition on
    # them then fails: the guard never allows what it could not check).
    leading_keys: tuple[str, ...] | None = ()


@dataclass(frozen=True)
class Denial:
    function: str
    operation: str
    request: Request

    @property
    def message(self) -> str:
        return (
            f"function {self.function} is not authorized to perform {self.request.action} on resource "
            f"{self.request.resource}{_keys_note(self.request)} (its role's policy in the synthesized "
            f"template allows no such request; botocore operation {self.operation})"
        )


class AccessDenied(ClientError):
    """What AWS answers a call outside the role's grant: AccessDeniedException."""

    def __init__(self, denial: Denial) -> None:
        super().__init__(
            {
                "Error": {"Code": "AccessDeniedException", "Message": denial.message},
                "ResponseMetadata": {
                    "HTTPStatusCode": 400,
                    "HTTPHeaders": {},
                    "RequestId": "",
                    "HostId": "",
                    "RetryAttempts": 0,
                },
            },
            denial.operation,
        )
        self.denial = denial


class AccessGuard:
    """The functions' grants bound to one backend's physical resource names."""

    def __init__(
        self,
        access: StackAccess,
        names: Mapping[str, str],
        *,
        region: str = REGION,
        account: str = ACCOUNT_ID,
    ) -> None:
        """``names``: resource key (wiring) -> physical name (a queue's name, not its URL)."""
        self.access = access
        self.region, self.account = region, account
        bound = {f"${{{key}}}": self._arn(key, kind, names) for key, kind in access.resources.items()}
        bound |= {"${AWS::Region}": region, "${AWS::AccountId}": account}
        self._policies = {
            key: tuple(_CompiledStatement.of(s, bound, where=f"function {key}") for s in grant.statements)
            for key, grant in access.functions.items()
        }
        # Physical table name -> its partition key attribute, to read dynamodb:LeadingKeys.
        self._partition_keys = {
            names[key]: attribute for key, attribute in access.partition_keys.items() if key in names
        }

    def knows(self, function: str) -> bool:
        return function in self._policies

    def environment(self, function: str) -> tuple[str, ...]:
        """The names of the environment variables the function has on Lambda."""
        return self.access.functions[function].environment

    def allows(self, function: str, request: Request) -> bool:
        statements = [s for s in self._policies[function] if s.applies(request)]
        return bool(statements) and all(s.allow for s in statements)

    def denied(self, function: str, service: str, operation: str, params: Mapping[str, Any]) -> Denial | None:
        """The first request of this call the function's grant does not allow, if any."""
        return self._first_denied(function, operation, self.requests(service, operation, params))

    def _first_denied(self, function: str, operation: str, requests: Sequence[Request]) -> Denial | None:
        for request in requests:
            if not self.allows(function, request):
                return Denial(function, operation, request)
        return None

    def requests(self, service: str, operation: str, params: Mapping[str, Any]) -> list[Request]:
        """The IAM requests AWS authorizes for this call (``operation`` is botocore's, e.g. UpdateItem)."""
        if service == "dynamodb":
            return self._dynamodb(operation, params)
        if service == "sqs":
            return [_sqs(operation, params, self.region, self.account)]
        if service == "s3":
            return _s3(operation, params)
        # Fail closed: a service the guard does not know is a call no role here is meant to make.
        return [Request(f"{service}:{operation}", "*", None)]

    def _dynamodb(self, operation: str, params: Mapping[str, Any]) -> list[Request]:
        def table(name: str, index: str | None = None) -> str:
            arn = f"arn:aws:dynamodb:{self.region}:{self.account}:table/{name}"
            return f"{arn}/index/{index}" if index else arn

        def keys(name: str, *items: Mapping[str, Any]) -> tuple[str, ...] | None:
            attribute = self._partition_keys.get(name)
            if attribute is None or any(attribute not in item for item in items):
                return None
            return tuple(_scalar(item[attribute]) for item in items)

        if operation in ("TransactWriteItems", "TransactGetItems"):
            # No transaction action exists in IAM: each item is authorized as its own operation.
            actions = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem"}
            actions |= {"ConditionCheck": "ConditionCheckItem", "Get": "GetItem"}
            out = []
            for entry in params.get("TransactItems", []):
                ((kind, item),) = entry.items()
                name = item["TableName"]
                out.append(Request(f"dynamodb:{actions[kind]}", table(name), keys(name, _item_key(item))))
            return out
        if operation in ("BatchWriteItem", "BatchGetItem"):
            out = []
            for name, entries in params.get("RequestItems", {}).items():
                if operation == "BatchGetItem":
                    items = list(entries.get("Keys", []))
                else:
                    items = [_item_key(e.get("PutRequest") or e["DeleteRequest"]) for e in entries]
                out.append(Request(f"dynamodb:{operation}", table(name), keys(name, *items)))
            return out
        name = params.get("TableName")
        if name is None:
            return [Request(f"dynamodb:{operation}", "*")]
        resource = table(name, params.get("IndexName"))
        if operation in ("GetItem", "PutItem", "UpdateItem", "DeleteItem"):
            return [Request(f"dynamodb:{operation}", resource, keys(name, _item_key(params)))]
        if operation == "Query":
            return [Request("dynamodb:Query", resource, self._queried_key(name, params))]
        return [Request(f"dynamodb:{operation}", resource, None if operation == "Scan" else ())]

    def _queried_key(self, table: str, params: Mapping[str, Any]) -> tuple[str, ...] | None:
        """The partition key a Query names in ``pk = :v`` of its KeyConditionExpression."""
        attribute = self._partition_keys.get(table)
        expression = params.get("KeyConditionExpression")
        if attribute is None or not isinstance(expression, str):
            return None
        names = params.get("ExpressionAttributeNames", {})
        for clause in re.split(r"\s+AND\s+", expression, flags=re.IGNORECASE):
            match = re.fullmatch(r"\(?\s*([#\w.]+)\s*=\s*(:\w+)\s*\)?", clause.strip())
            if match and names.get(match[1], match[1]) == attribute:
                value = params.get("ExpressionAttributeValues", {}).get(match[2])
                return (_scalar(value),) if value is not None else None
        return None

    def _arn(self, key: str, kind: str, names: Mapping[str, str]) -> str:
        name = names.get(key)
        if name is None:
            return f"<{key} is not provisioned>"  # matches no call
        if kind == TABLE:
            return f"arn:aws:dynamodb:{self.region}:{self.account}:table/{name}"
        if kind == QUEUE:
            return f"arn:aws:sqs:{self.region}:{self.account}:{name}"
        if kind == BUCKET:
            return f"arn:aws:s3:::{name}"
        raise ValueError(f"resource {key}: unknown kind {kind!r}")


def physical_names(environment: Mapping[str, str]) -> dict[str, str]:
    """Resource key -> physical name, from the environment the wiring declares (``env_var``)."""
    from infra import wiring

    names = {}
    specs: tuple[wiring.TableSpec | wiring.QueueSpec | wiring.BucketSpec, ...] = (
        *wiring.TABLES,
        *wiring.QUEUES,
        *wiring.BUCKETS,
    )
    for spec in specs:
        value = environment.get(spec.env_var)
        if value:
            names[spec.key] = _queue_name(value) if isinstance(spec, wiring.QueueSpec) else value
        dlq = environment.get(spec.dlq_env_var or "") if isinstance(spec, wiring.QueueSpec) else None
        if isinstance(spec, wiring.QueueSpec) and dlq:
            names[wiring.dlq_resource(spec.key)] = _queue_name(dlq)
    return names


# ---------------------------------------------------------------------------------------------
# Installing the guard and running as a function
# ---------------------------------------------------------------------------------------------

_current: contextvars.ContextVar[str | None] = contextvars.ContextVar("continuity_function", default=None)
_state_lock = threading.Lock()
_guard: AccessGuard | None = None
_process_function: str | None = None
_denials: list[Denial] = []
_checked: list[tuple[str, Request]] = []  # what functions were allowed, when recording
_recording = False
_hooked = False


def install(guard: AccessGuard | None, *, process_function: str | None = None, record: bool = False) -> None:
    """Check every botocore call made while a function runs against ``guard`` (None: stop checking).

    ``process_function``: a process that runs one function only (a local stack worker) checks
    every call of every thread as that function, without ``running_as``. ``record``: keep what
    was allowed for ``take_allowed`` (tests).
    """
    global _guard, _process_function, _recording
    with _state_lock:
        _guard, _process_function, _recording = guard, process_function, record
        _checked.clear()
        _hook_botocore()


def guard_worker(
    access: StackAccess,
    names: Mapping[str, str],
    then: Callable[[FunctionSpec], None] | None,
    spec: FunctionSpec,
) -> None:
    """A local stack worker's setup (``functools.partial`` of the first three): the worker runs one
    function, so every AWS call of the process is checked as that function's; then ``then``."""
    install(AccessGuard(access, names), process_function=spec.key)
    if then is not None:
        then(spec)


def installed() -> AccessGuard | None:
    return _guard


@contextmanager
def running_as(function: str) -> Iterator[None]:
    """Every AWS call in this block (and in thread-pool tasks it submits) is checked as ``function``'s."""
    token = _current.set(function)
    try:
        yield
    finally:
        _current.reset(token)


def current_function() -> str | None:
    return _current.get() or _process_function


def take_denials() -> list[Denial]:
    """The denials since the last call (each also raised AccessDenied where it happened)."""
    with _state_lock:
        taken = list(_denials)
        _denials.clear()
    return taken


def take_allowed() -> list[tuple[str, Request]]:
    """The (function, request) pairs the guard allowed since the last call."""
    with _state_lock:
        taken = list(_checked)
        _checked.clear()
    return taken


def _check(params: Mapping[str, Any], model: Any, **_: Any) -> None:
    """botocore ``before-parameter-build``: the call's own parameters, before serialisation."""
    guard, function = _guard, current_function()
    if guard is None or function is None or not guard.knows(function):
        return
    requests = guard.requests(model.service_model.service_name, model.name, params)
    denial = guard._first_denied(function, model.name, requests)
    if denial is None:
        if _recording:
            with _state_lock:
                _checked.extend((function, request) for request in requests)
        return
    with _state_lock:
        _denials.append(denial)
    log.error("%s %s", LOG_MARK, denial.message)
    raise AccessDenied(denial)


def _hook_botocore() -> None:
    """Register the check on every botocore session created from now on (as moto registers its
    stub), and let thread-pool tasks run as the function that submitted them: the transcript store
    reads S3 chunks on a pool, and those reads are the function's as much as any other."""
    global _hooked
    if _hooked:
        return
    from botocore.handlers import BUILTIN_HANDLERS

    BUILTIN_HANDLERS.append(("before-parameter-build", _check))
    submit = ThreadPoolExecutor.submit

    def submit_in_context(self: ThreadPoolExecutor, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        if _current.get() is None:
            return submit(self, fn, *args, **kwargs)
        return submit(self, contextvars.copy_context().run, fn, *args, **kwargs)

    ThreadPoolExecutor.submit = submit_in_context  # type: ignore[method-assign, assignment]
    _hooked = True


# ---------------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _CompiledStatement:
    allow: bool
    actions: tuple[re.Pattern[str], ...]
    resources: tuple[re.Pattern[str], ...]
    conditions: tuple[tuple[str, str, str, tuple[re.Pattern[str], ...]], ...]  # qualifier, op, key, values

    @classmethod
    def of(cls, statement: Statement, bound: Mapping[str, str], where: str) -> _CompiledStatement:
        if statement.effect not in ("Allow", "Deny"):
            raise ValueError(f"{where}: unknown effect {statement.effect!r}")
        conditions = []
        for operator, keys in statement.conditions.items():
            qualifier, _, name = operator.rpartition(":")
            qualifier = f"{qualifier}:" if qualifier else ""
            if qualifier not in _QUALIFIERS or name.removesuffix("IfExists") not in _OPERATORS:
                raise ValueError(f"{where}: the access guard cannot evaluate the condition {operator}")
            for key, values in keys.items():
                if key not in _CONDITION_KEYS:
                    raise ValueError(f"{where}: the access guard cannot evaluate the condition key {key}")
                like = "Like" in name
                patterns = tuple(_glob(v, case=True) if like else re.compile(re.escape(v)) for v in values)
                conditions.append((qualifier, name, key, patterns))
        resources = []
        for pattern in statement.resources:
            for placeholder, value in bound.items():
                pattern = pattern.replace(placeholder, value)
            resources.append(_glob(pattern, case=True))
        return cls(
            allow=statement.effect == "Allow",
            actions=tuple(_glob(action, case=False) for action in statement.actions),
            resources=tuple(resources),
            conditions=tuple(conditions),
        )

    def applies(self, request: Request) -> bool:
        return (
            any(p.fullmatch(request.action) for p in self.actions)
            and any(p.fullmatch(request.resource) for p in self.resources)
            and all(self._holds(*condition, request) for condition in self.conditions)
        )

    @staticmethod
    def _holds(
        qualifier: str, operator: str, key: str, patterns: Sequence[re.Pattern[str]], request: Request
    ) -> bool:
        values = request.leading_keys  # the one condition key the guard evaluates
        if values is None:
            return False
        negated = "Not" in operator

        def matches(value: str) -> bool:
            return any(p.fullmatch(value) for p in patterns) != negated

        if qualifier == "ForAllValues:":
            return all(matches(v) for v in values)  # true for no values at all, as in IAM
        if qualifier == "ForAnyValue:":
            return any(matches(v) for v in values)
        if not values:  # a missing key: only IfExists and the negated operators hold
            return operator.endswith("IfExists") or negated
        return len(values) == 1 and matches(values[0])


@lru_cache(maxsize=512)
def _glob(pattern: str, case: bool) -> re.Pattern[str]:
    """IAM's wildcards: ``*`` any run of characters, ``?`` one character; nothing else is special."""
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(body, 0 if case else re.IGNORECASE)


def _sqs(operation: str, params: Mapping[str, Any], region: str, account: str) -> Request:
    # The batch calls are authorized as the single ones (SendMessageBatch needs sqs:SendMessage).
    action = "sqs:" + operation.removesuffix("Batch")
    if "QueueUrl" in params:
        name = _queue_name(params["QueueUrl"])
    else:
        name = params.get("QueueName") or params.get("QueueNamePrefix", "") + "*"
    return Request(action, f"arn:aws:sqs:{region}:{account}:{name}")


# S3 calls whose IAM action is not the operation's name; the rest are authorized per object below.
_S3_BUCKET_ACTIONS = dict.fromkeys(("ListObjectsV2", "ListObjects", "HeadBucket"), "s3:ListBucket")
_S3_OBJECT_ACTIONS = {
    "GetObject": "s3:GetObject",
    "HeadObject": "s3:GetObject",
    "PutObject": "s3:PutObject",
    "CreateMultipartUpload": "s3:PutObject",
    "UploadPart": "s3:PutObject",
    "CompleteMultipartUpload": "s3:PutObject",
    "AbortMultipartUpload": "s3:AbortMultipartUpload",
    "DeleteObject": "s3:DeleteObject",
}


def _s3(operation: str, params: Mapping[str, Any]) -> list[Request]:
    bucket = params.get("Bucket", "")
    if operation == "DeleteObjects":  # authorized as s3:DeleteObject on each key
        objects = params.get("Delete", {}).get("Objects", [])
        return [Request("s3:DeleteObject", f"arn:aws:s3:::{bucket}/{o['Key']}") for o in objects]
    if operation == "CopyObject":
        source = params.get("CopySource")
        source_arn = (
            f"arn:aws:s3:::{source['Bucket']}/{source['Key']}"
            if isinstance(source, Mapping)
            else f"arn:aws:s3:::{str(source).lstrip('/')}"
        )
        return [
            Request("s3:GetObject", source_arn),
            Request("s3:PutObject", f"arn:aws:s3:::{bucket}/{params.get('Key', '')}"),
        ]
    if operation in _S3_BUCKET_ACTIONS:
        return [Request(_S3_BUCKET_ACTIONS[operation], f"arn:aws:s3:::{bucket}")]
    action = _S3_OBJECT_ACTIONS.get(operation)
    if action is None:
        # Unmapped: a request no grant can match, so a new kind of call is mapped deliberately.
        return [Request(f"s3:{operation} (not mapped by the access guard)", f"arn:aws:s3:::{bucket}")]
    if params.get("VersionId") and action in ("s3:GetObject", "s3:DeleteObject"):
        action += "Version"
    return [Request(action, f"arn:aws:s3:::{bucket}/{params.get('Key', '')}")]


def _item_key(item: Mapping[str, Any]) -> Mapping[str, Any]:
    return item.get("Key") or item.get("Item") or {}


def _scalar(value: Any) -> str:
    """A DynamoDB attribute value as IAM sees a key: its string form ({"S": "x"} -> "x")."""
    if isinstance(value, Mapping) and len(value) == 1:
        return str(next(iter(value.values())))
    return str(value)


def _queue_name(url: str) -> str:
    return urlparse(url).path.rstrip("/").rsplit("/", 1)[-1]


def _keys_note(request: Request) -> str:
    if request.leading_keys is None:
        return ""
    shown = ", ".join(request.leading_keys[:3]) + (", ..." if len(request.leading_keys) > 3 else "")
    return f" (partition keys: {shown})" if shown else ""
