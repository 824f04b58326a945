// The OpenClaw plugin: typed hooks registered with api.on(...), with events and contexts shaped as
// openclaw 2026.9.6 types them (PluginHookSessionStartEvent {sessionId, sessionKey?, resumedFrom?},
// PluginHookSessionEndEvent {reason: new|reset|idle|daily|compaction|deleted|shutdown|restart|
// unknown, nextSessionKey?}, PluginHookSubagentContext {requesterSessionKey?, childSessionKey?},
// PluginHookBeforePromptBuildEvent {prompt, currentUserMessage?, currentUserMessageId?},
// PluginHookAgentContext {sessionKey, workspaceDir, trigger, inputProvenance}), become
// `continuity hook` runs; before_prompt_build returns what they answered.
import assert from "node:assert/strict";
import { test } from "node:test";

import plugin, { createContinuity } from "../../client/continuity_client/plugins/openclaw.js";
import { eventually, fakeContinuity } from "./support.mjs";

// The typed hook names the shipped SDK accepts (PluginHookName, openclaw 2026.9.6); any other
// name is "ignored" with a warning.
const HOST_HOOKS = new Set([
  "before_model_resolve",
  "agent_turn_prepare",
  "before_prompt_build",
  "before_agent_reply",
  "model_call_started",
  "model_call_ended",
  "llm_input",
  "llm_output",
  "before_agent_finalize",
  "agent_end",
  "before_compaction",
  "after_compaction",
  "before_reset",
  "inbound_claim",
  "channel_pairing_requested",
  "message_received",
  "message_sending",
  "reply_payload_sending",
  "message_sent",
  "before_tool_call",
  "after_tool_call",
  "tool_result_persist",
  "before_message_write",
  "session_start",
  "session_end",
  "subagent_delivery_target",
  "subagent_spawned",
  "subagent_progress",
  "subagent_ended",
  "gateway_start",
  "gateway_stop",
  "heartbeat_prompt_contribution",
  "cron_reconciled",
  "cron_changed",
  "skill_proposal_evaluate",
  "skill_proposal_changed",
  "skill_changed",
  "before_dispatch",
  "reply_dispatch",
  "before_install",
  "before_agent_run",
  "resolve_exec_env",
]);
const WORKSPACE = "/home/me/.openclaw/workspace";
const MAIN = "agent:main:main";

/** The plugin as the host loads it: register(api) with api.on; `fire(name, event, ctx)` runs a handler. */
function register(config) {
  const handlers = new Map();
  const api = {
    id: "continuity",
    pluginConfig: config,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    on(name, handler) {
      assert.ok(!handlers.has(name), `registered twice: ${name}`);
      handlers.set(name, handler);
    },
  };
  plugin.register(api);
  return handlers;
}

/** The same handlers, their hooks run with the fake client's environment. */
function load(fake) {
  const { handlers } = createContinuity({ command: fake.command, env: fake.env });
  return { fire: (name, event, ctx) => handlers[name](event, ctx) };
}

const agent = (sessionKey, extra = {}) => ({
  agentId: sessionKey.split(":")[1],
  sessionKey,
  sessionId: `${sessionKey}-id`,
  workspaceDir: WORKSPACE,
  trigger: "user",
  ...extra,
});
const build = (text, id) => ({ prompt: text, currentUserMessage: text, currentUserMessageId: id, messages: [] });

test("the plugin registers only hooks the host knows (subagent_spawning is gone from it)", () => {
  const handlers = register({ command: ["continuity"] });
  assert.deepEqual(
    [...handlers.keys()].filter((name) => !HOST_HOOKS.has(name)),
    [],
  );
  assert.deepEqual([...handlers.keys()].sort(), [
    "after_compaction",
    "before_compaction",
    "before_prompt_build",
    "session_end",
    "session_start",
    "subagent_ended",
    "subagent_spawned",
  ]);
});

test("the hooks run the command install wrote into the plugin's config", async () => {
  const fake = fakeContinuity();
  Object.assign(process.env, { FAKE_CONTINUITY_LOG: fake.env.FAKE_CONTINUITY_LOG });
  const handlers = register({ command: fake.command });

  await handlers.get("subagent_ended")({ targetSessionKey: "agent:coder:subagent:9", targetKind: "subagent", reason: "done" }, {});

  assert.deepEqual(
    fake.calls().map((call) => call.argv.slice(0, 4)),
    [["hook", "session-end", "--harness", "openclaw"]],
  );
});

test("the first prompt starts the session in its workspace and gets the recovery block", async () => {
  const fake = fakeContinuity({ "session-start": "## Session Recovery Context\nthe plan" });
  const { fire } = load(fake);

  await fire("session_start", { sessionId: "s-1", sessionKey: MAIN }, { agentId: "main", sessionId: "s-1", sessionKey: MAIN });
  const result = await fire("before_prompt_build", build("fix the flaky test", "u1"), agent(MAIN));

  assert.equal(result.prependSystemContext, "## Session Recovery Context\nthe plan");
  assert.equal(result.prependContext, undefined);
  const [start, prompt] = await eventually(() => (fake.calls().length === 2 ? fake.calls() : null));
  assert.deepEqual(
    [start.event, start.harness, start.session_id, start.cwd, start.source],
    ["session-start", "openclaw", MAIN, WORKSPACE, "startup"],
  );
  assert.deepEqual([prompt.event, prompt.prompt], ["user-prompt-submit", "fix the flaky test"]);
});

test("the block stays on every prompt; a prompt's answer comes once, with the next prompt", async () => {
  const fake = fakeContinuity({ "session-start": "block", "user-prompt-submit": "Continuity: 91% full" });
  const { fire } = load(fake);

  await fire("before_prompt_build", build("one", "u1"), agent(MAIN));
  await eventually(() => fake.calls().some((call) => call.event === "user-prompt-submit"));
  await new Promise((resolve) => setTimeout(resolve, 50)); // the answer is read after the child exits
  const second = await fire("before_prompt_build", build("two", "u2"), agent(MAIN));
  const third = await fire("before_prompt_build", build("three", "u3"), agent(MAIN));

  assert.deepEqual(second, { prependSystemContext: "block", prependContext: "Continuity: 91% full" });
  assert.equal(third.prependSystemContext, "block");
});

test("a rebuild of the same request, a heartbeat or another session's message is no prompt", async () => {
  const fake = fakeContinuity();
  const { fire } = load(fake);

  await fire("before_prompt_build", build("deploy it", "u1"), agent(MAIN));
  await fire("before_prompt_build", build("deploy it", "u1"), agent(MAIN)); // retry of u1
  await fire("before_prompt_build", build("heartbeat", "h1"), agent(MAIN, { trigger: "heartbeat" }));
  await fire("before_prompt_build", build("[subagent done]", "i1"), agent(MAIN, { inputProvenance: { kind: "inter_session" } }));

  await eventually(() => fake.calls().length >= 2);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(
    fake
      .calls()
      .filter((call) => call.event === "user-prompt-submit")
      .map((call) => call.prompt),
    ["deploy it"],
  );
});

test("/new ends the session as a clear, and the next session recovers it", async () => {
  const fake = fakeContinuity({ "session-start:clear": "## Session Recovery Context\nwhat was cleared" });
  const { fire } = load(fake);
  await fire("before_prompt_build", build("work", "u1"), agent(MAIN));

  await fire("session_end", { sessionId: "s-1", sessionKey: MAIN, messageCount: 4, reason: "new" }, { sessionId: "s-1", sessionKey: MAIN });
  await fire("session_start", { sessionId: "s-2", sessionKey: MAIN }, { sessionId: "s-2", sessionKey: MAIN });
  const result = await fire("before_prompt_build", build("go on", "u2"), agent(MAIN));

  const events = fake.calls().map((call) => [call.event, call.reason ?? call.source ?? null]);
  assert.deepEqual(events.slice(0, 4), [
    ["session-start", "startup"],
    ["user-prompt-submit", null],
    ["session-end", "clear"],
    ["session-start", "clear"],
  ]);
  assert.equal(result.prependSystemContext, "## Session Recovery Context\nwhat was cleared");
});

test("session_end passes its reason on, except a compaction's (before_compaction covered it)", async () => {
  const fake = fakeContinuity();
  const { fire } = load(fake);

  await fire("session_end", { sessionId: "s-1", sessionKey: MAIN, messageCount: 3, reason: "compaction" }, {});
  await fire("session_end", { sessionId: "s-1", sessionKey: MAIN, messageCount: 3, reason: "idle" }, {});
  await fire("session_end", { sessionId: "s-9", sessionKey: "agent:main:other", messageCount: 1, reason: "shutdown" }, {});

  await eventually(() => fake.calls().length === 2);
  const ends = fake
    .calls()
    .map((call) => [call.event, call.session_id, call.reason])
    .sort();
  assert.deepEqual(ends, [
    ["session-end", MAIN, "idle"],
    ["session-end", "agent:main:other", "shutdown"],
  ]);
});

test("compaction writes the checkpoint first and brings a fresh block after", async () => {
  const fake = fakeContinuity({ "session-start": "old block", "session-start:compact": "fresh block" });
  const { fire } = load(fake);
  await fire("before_prompt_build", build("work", "u1"), agent(MAIN));

  await fire("before_compaction", { messageCount: 80, tokenCount: 150000 }, agent(MAIN));
  await fire("after_compaction", { messageCount: 12, compactedCount: 68 }, agent(MAIN));
  const result = await fire("before_prompt_build", build("continue", "u2"), agent(MAIN));

  const events = fake.calls().map((call) => [call.event, call.source ?? null]);
  assert.deepEqual(
    events.filter(([event]) => event !== "user-prompt-submit"),
    [
      ["session-start", "startup"],
      ["pre-compaction", null],
      ["session-start", "compact"],
    ],
  );
  assert.equal(result.prependSystemContext, "fresh block");
});

test("a sub-agent's parent is the requester, even when its key names another agent", async () => {
  // Given main spawns a sub-agent of agent "coder" (its key says coder, its parent is main)
  const child = "agent:coder:subagent:6f1c2a9e";
  const fake = fakeContinuity({ "session-start": "## Inherited from Parent Session" });
  const { fire } = load(fake);
  await fire("before_prompt_build", build("delegate", "u1"), agent(MAIN));

  await fire(
    "subagent_spawned",
    { childSessionKey: child, agentId: "coder", mode: "run", threadRequested: false, runId: "r1" },
    { runId: "r1", childSessionKey: child, requesterSessionKey: MAIN },
  );
  await fire("session_start", { sessionId: "c-1", sessionKey: child }, { sessionId: "c-1", sessionKey: child });
  const result = await fire("before_prompt_build", build("the task", "c-u1"), agent(child, { workspaceDir: undefined }));

  const start = fake.calls().find((call) => call.event === "session-start" && call.session_id === child);
  assert.equal(start.parent_session_key, MAIN);
  assert.equal(start.cwd, WORKSPACE); // the requester's workspace, the child reported none
  assert.equal(result.prependSystemContext, "## Inherited from Parent Session");
});

test("a spawn announced after the child started posts subagent-start with the parent", async () => {
  const child = "agent:coder:subagent:77aa";
  const fake = fakeContinuity({ "session-start": "guessed", "subagent-start": "## Inherited from Parent Session\nfrom main" });
  const { fire } = load(fake);

  await fire("before_prompt_build", build("the task", "c-u1"), agent(child));
  await fire(
    "subagent_spawned",
    { childSessionKey: child, agentId: "coder", mode: "run", threadRequested: false, runId: "r1" },
    { requesterSessionKey: MAIN },
  );
  const result = await fire("before_prompt_build", build("more", "c-u2"), agent(child));

  const spawned = fake.calls().find((call) => call.event === "subagent-start");
  assert.deepEqual([spawned.session_id, spawned.parent_session_key], [child, MAIN]);
  assert.equal(result.prependSystemContext, "## Inherited from Parent Session\nfrom main");
});

test("subagent_ended ends the child's session with its outcome", async () => {
  const fake = fakeContinuity();
  const { fire } = load(fake);

  await fire(
    "subagent_ended",
    { targetSessionKey: "agent:coder:subagent:1", targetKind: "subagent", reason: "completed", outcome: "ok" },
    {},
  );

  const [end] = fake.calls();
  assert.deepEqual([end.event, end.session_id, end.reason], ["session-end", "agent:coder:subagent:1", "ok"]);
});
