"""POST /api/hooks/{event}: lifecycle hooks from agents (Claude Code, Codex, Gemini CLI, Signet shapes)."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body
from aws_lambda_powertools.utilities.typing import LambdaContext

from continuity_core.hooks.normalize import normalize_hook
from continuity_core.kernel.http import ERROR_RESPONSES, caller, create_app, resolve, seen_hook
from continuity_core.kernel.names import NUDGE_POINT_HEADER
from continuity_core.kernel.observability import count, logger, metrics
from continuity_core.models.hooks import HookEvent, HookRequest
from continuity_core.models.scopes import Scope
from continuity_core.roots import hooks as root
from continuity_core.roots.cold_start import ColdStart

deps = ColdStart(root.build)  # built on the first invocation: once per cold start
app = create_app(lambda: deps().rate_limiter)


@app.post("/api/hooks/<event>", responses=ERROR_RESPONSES)
def post_hook(event: HookEvent, request: Annotated[HookRequest, Body()]) -> Response[dict[str, Any]]:
    hook = normalize_hook(event, request)
    logger.set_correlation_id(hook.session_key)
    who = caller(app, Scope.HOOKS)
    agent_id = who.agent_id
    if event is HookEvent.SESSION_START and hook.person is None and who.token_name:
        hook = hook.model_copy(update={"person": who.token_name})
    seen_hook(app, hook.harness, event.value)  # received, whatever comes of it (the health page)
    outcome = deps().hooks.handle(agent_id, hook)
    count("HooksReceived", event=event.value)
    if outcome.flush_requested:
        count("FlushesRequested")
    if outcome.flush_merged:
        count("FlushesMerged")
    if hook.redactions:
        count("Redactions", value=hook.redactions)
    if outcome.duplicate:
        count("HookReplaysIgnored")
    if event is HookEvent.SESSION_START:
        count("RecoveryInjected" if outcome.recovery else "RecoveryMissed")
    if outcome.inherited:
        count("InheritInjected")
    if outcome.nudged:
        count("CompactionNudges")
    if outcome.truncated:
        count("InjectionTruncated")  # something was left out to fit the harness's cap (the text says so)
    if app.current_event.headers.get("x-continuity-replay"):
        count("SpoolReplays")  # the client delivers a hook it had spooled while the service was away
    # The nudge point rides on every answer: the client learns when a prompt must wait for its answer.
    told = {NUDGE_POINT_HEADER: str(deps().config.nudge_point_tokens)}
    return Response(200, content_types.APPLICATION_JSON, outcome.response.to_claude_code(), told)


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return resolve(app, event, context)
