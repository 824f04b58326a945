// The OpenCode plugin: OpenCode's events and hooks, shaped as @opencode-ai/plugin and
// @opencode-ai/sdk 1.18.33 type them (Hooks, EventSessionCreated {properties: {info: Session}},
// EventSessionIdle/Compacted {properties: {sessionID}}, session.messages() -> [{info, parts}]),
// become `continuity hook` runs, and what the hooks answer comes back into the system prompt and
// the compaction prompt.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import plugin from "../../client/continuity_client/plugins/opencode.js";
import * as module from "../../client/continuity_client/plugins/opencode.js";
import { eventually, fakeContinuity } from "./support.mjs";

const ROOT = "/work/shop";
const session = (id, extra = {}) => ({
  id,
  projectID: "p1",
  directory: ROOT,
  title: "Fix the flaky test",
  version: "1.18.33",
  time: { created: 1, updated: 1 },
  ...extra,
});
const user = (id, sessionID, parts) => ({
  info: { id, sessionID, role: "user", time: { created: 2 }, agent: "build", model: { providerID: "p", modelID: "m" } },
  parts: parts.map((part, n) => ({ id: `${id}-${n}`, sessionID, messageID: id, ...part })),
});
const assistant = (id, sessionID, parts, extra = {}) => ({
  info: {
    id,
    sessionID,
    role: "assistant",
    time: { created: 3, completed: 4 },
    parentID: "m1",
    modelID: "m",
    providerID: "p",
    mode: "build",
    path: { cwd: ROOT, root: ROOT },
    cost: 0,
    tokens: { input: 1200, output: 40, reasoning: 0, cache: { read: 3000, write: 100 } },
    ...extra,
  },
  parts: parts.map((part, n) => ({ id: `${id}-${n}`, sessionID, messageID: id, ...part })),
});

/** OpenCode's client, as far as the plugin uses it: session.get and session.messages. */
function fakeClient(messages = {}, sessions = {}) {
  return {
    session: {
      get: async ({ path }) => ({ data: sessions[path.id] ?? null }),
      messages: async ({ path, query }) => {
        const all = messages[path.id] ?? [];
        return { data: query?.limit ? all.slice(-query.limit) : all };
      },
    },
  };
}

async function load(fake, client = fakeClient()) {
  return plugin.server(
    { client, project: { id: "p1", worktree: ROOT }, directory: ROOT, worktree: ROOT, serverUrl: new URL("http://localhost:4096") },
    { command: fake.command, env: fake.env },
  );
}

const system = async (hooks, sessionID) => {
  const output = { system: ["You are OpenCode."] };
  await hooks["experimental.chat.system.transform"]({ sessionID, model: {} }, output);
  return output.system;
};

test("the file exports only {id, server}: OpenCode calls every exported function as a plugin", () => {
  assert.deepEqual(Object.keys(module), ["default"]);
  assert.equal(plugin.id, "continuity");
  assert.equal(typeof plugin.server, "function");
});

test("a sub-agent's session.created starts its session with the parent OpenCode names", async () => {
  // Given the plugin and a fake client that answers session-start with an inherited block
  const fake = fakeContinuity({ "session-start": "## Inherited from Parent Session\nkeep the API stable" });
  const hooks = await load(fake);

  // When OpenCode creates a child session (the task tool) and its first request is built
  await hooks.event({ event: { type: "session.created", properties: { info: session("ses_child", { parentID: "ses_parent" }) } } });
  const prompt = await system(hooks, "ses_child");

  // Then one session-start went out, with the parent, and its answer is in the system prompt
  const [start] = fake.calls();
  assert.equal(start.event, "session-start");
  assert.equal(start.harness, "opencode");
  assert.equal(start.session_id, "ses_child");
  assert.equal(start.parent_session_key, "ses_parent");
  assert.equal(start.source, "startup");
  assert.equal(start.cwd, ROOT);
  assert.deepEqual(prompt, ["You are OpenCode.", "## Inherited from Parent Session\nkeep the API stable"]);
  assert.equal(fake.calls().length, 1);
});

test("the recovery block stays in every request until a compaction brings a fresh one", async () => {
  const fake = fakeContinuity({
    "session-start": "## Session Recovery Context\nold",
    "session-start:compact": "## Session Recovery Context\nafter compaction",
  });
  const hooks = await load(fake);
  await hooks.event({ event: { type: "session.created", properties: { info: session("ses_1") } } });

  assert.ok((await system(hooks, "ses_1")).includes("## Session Recovery Context\nold"));
  assert.ok((await system(hooks, "ses_1")).includes("## Session Recovery Context\nold"));

  await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_1" } } });
  const after = await system(hooks, "ses_1");

  assert.ok(after.includes("## Session Recovery Context\nafter compaction"));
  assert.ok(!after.includes("## Session Recovery Context\nold"));
  assert.deepEqual(
    fake.calls().map((call) => [call.event, call.source]),
    [
      ["session-start", "startup"],
      ["session-start", "compact"],
    ],
  );
});

test("the request right after a compaction waits for the fresh block", async () => {
  const fake = fakeContinuity({ "session-start": "old", "session-start:compact": "fresh" }, { FAKE_CONTINUITY_SLEEP_MS: "200" });
  const hooks = await load(fake);
  await hooks.event({ event: { type: "session.created", properties: { info: session("ses_1") } } });
  await system(hooks, "ses_1");

  // OpenCode publishes the event and goes on to the next request without waiting for plugins
  hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_1" } } });
  const after = await system(hooks, "ses_1");

  assert.ok(after.includes("fresh") && !after.includes("old"));
});

test("a user's message is posted with its words only and the finished transcript, in order", async () => {
  // Given a session whose storage holds the user's message (with OpenCode's synthetic file text),
  // a finished reply with a tool call, and a reply still being written
  const messages = {
    ses_1: [
      user("m1", "ses_1", [
        { type: "text", text: "Fix the flaky payment test" },
        { type: "text", text: 'Called the Read tool with {"filePath": "mock.py"}', synthetic: true },
      ]),
      assistant("m2", "ses_1", [
        { type: "step-start" },
        { type: "reasoning", text: "thinking", time: { start: 1 } },
        { type: "text", text: "The mock's clock is not frozen." },
        {
          type: "tool",
          callID: "c1",
          tool: "read",
          state: {
            status: "completed",
            input: { filePath: "/work/shop/mock.py" },
            output: "x".repeat(9000),
            title: "mock.py",
            metadata: {},
            time: { start: 1, end: 2 },
          },
        },
        { type: "step-finish", reason: "stop", cost: 0, tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } } },
      ]),
      assistant("m3", "ses_1", [{ type: "text", text: "I'll patch" }], { time: { created: 5 } }),
    ],
  };
  const fake = fakeContinuity({ "user-prompt-submit": "Continuity: this session's context is about 91% full" });
  const hooks = await load(fake, fakeClient(messages));
  await hooks.event({ event: { type: "session.created", properties: { info: session("ses_1") } } });

  // When the user's next message arrives (not awaited by OpenCode's turn)
  const next = user("m4", "ses_1", [
    { type: "text", text: "Now run the tests" },
    { type: "text", text: "<file>…</file>", synthetic: true },
  ]);
  await hooks["chat.message"]({ sessionID: "ses_1", agent: "build" }, { message: next.info, parts: next.parts });
  const prompt = await eventually(() => fake.calls().find((call) => call.event === "user-prompt-submit"));

  // Then the prompt is the user's words, and the transcript copy holds the finished messages only
  assert.equal(prompt.prompt, "Now run the tests");
  const lines = readFileSync(prompt.transcript_path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    lines.map((line) => line.info.id),
    ["m1", "m2"],
  );
  assert.equal(lines[1].parts[3].state.output.length, 4000); // long tool output is cut in the copy
  assert.equal(prompt.transcript_path, join(fake.env.CONTINUITY_HOME, "opencode", "ses_1.jsonl"));
  // And the answer (a nudge) joins the requests of this turn, and only this turn
  await eventually(async () => (await system(hooks, "ses_1")).some((text) => text.includes("91% full")));
  await hooks["chat.message"]({ sessionID: "ses_1" }, { message: {}, parts: [{ type: "text", text: "thanks" }] });
  assert.ok(!(await system(hooks, "ses_1")).some((text) => text.includes("91% full")));
});

test("the user's prompt reaches the transcript copy whole, though OpenCode saves it after chat.message", async () => {
  // Given OpenCode's order for a prompt (1.18.33 SessionPrompt): the chat.message hook, then the
  // message saved, then its parts one by one; the plugin's copy reads storage in between
  const prompt = user("m1", "ses_1", [{ type: "text", text: '"We must never edit the vendored folder. Add zstd support."' }]);
  const messages = { ses_1: [] };
  const client = fakeClient(messages);
  const read = client.session.messages;
  client.session.messages = async (request) => {
    // The copy's first read: the message is saved, its parts not yet
    if (!messages.ses_1.length) messages.ses_1.push({ info: prompt.info, parts: [] });
    return read(request);
  };
  const fake = fakeContinuity();
  const hooks = await load(fake, client);
  await hooks.event({ event: { type: "session.created", properties: { info: session("ses_1") } } });

  // When the prompt arrives, OpenCode saves it and answers, and the turn ends
  await hooks["chat.message"]({ sessionID: "ses_1", agent: "build" }, { message: prompt.info, parts: prompt.parts });
  await eventually(() => fake.calls().find((call) => call.event === "user-prompt-submit"));
  messages.ses_1.splice(0, 1, prompt, assistant("m2", "ses_1", [{ type: "text", text: "Done." }]));
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } });

  // Then the copy holds the prompt with its words, once, before the reply
  const stop = fake.calls().find((call) => call.event === "stop");
  const lines = readFileSync(stop.transcript_path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    lines.map((line) => line.info.id),
    ["m1", "m2"],
  );
  assert.deepEqual(lines[0].parts, [{ type: "text", text: '"We must never edit the vendored folder. Add zstd support."' }]);
});

test("the transcript copy only grows: a finished message is appended once, across restarts", async () => {
  const messages = { ses_1: [user("m1", "ses_1", [{ type: "text", text: "first" }])] };
  const fake = fakeContinuity();
  let hooks = await load(fake, fakeClient(messages));
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } });
  messages.ses_1.push(assistant("m2", "ses_1", [{ type: "text", text: "done" }]));

  hooks = await load(fake, fakeClient(messages)); // OpenCode restarted: a new plugin instance
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } });

  const idles = fake.calls().filter((call) => call.event === "stop");
  assert.equal(idles.length, 2);
  const ids = readFileSync(idles[1].transcript_path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line).info.id);
  assert.deepEqual(ids, ["m1", "m2"]);
});

test("compacting posts pre-compaction and puts its answer into the compaction prompt", async () => {
  const fake = fakeContinuity({ "pre-compaction": "## Session Recovery Context\nthe plan: freeze the clock" });
  const hooks = await load(fake, fakeClient({ ses_1: [user("m1", "ses_1", [{ type: "text", text: "go" }])] }));
  await hooks.event({ event: { type: "session.created", properties: { info: session("ses_1") } } });

  const output = { context: [] };
  await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, output);

  assert.deepEqual(output.context, ["## Session Recovery Context\nthe plan: freeze the clock"]);
  const compaction = fake.calls().find((call) => call.event === "pre-compaction");
  assert.ok(compaction.transcript_path.endsWith("ses_1.jsonl"));
});

test("idle and deleted sessions post stop and session-end with the transcript", async () => {
  const fake = fakeContinuity();
  const hooks = await load(fake, fakeClient({ ses_1: [user("m1", "ses_1", [{ type: "text", text: "go" }])] }));
  await hooks.event({ event: { type: "session.created", properties: { info: session("ses_1") } } });

  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } });
  await hooks.event({ event: { type: "session.deleted", properties: { info: session("ses_1") } } });

  const calls = fake.calls();
  assert.deepEqual(
    calls.map((call) => call.event),
    ["session-start", "stop", "session-end"],
  );
  assert.equal(calls[2].reason, "deleted");
  assert.ok(calls[1].transcript_path && calls[2].transcript_path);
});

test("a session first met on a request (OpenCode restarted) is a resume, its parent looked up", async () => {
  const fake = fakeContinuity({ "session-start:resume": "## Session Recovery Context\nresumed" });
  const client = fakeClient({}, { ses_2: session("ses_2", { parentID: "ses_p" }) });
  const hooks = await load(fake, client);

  const prompt = await system(hooks, "ses_2");

  const [start] = fake.calls();
  assert.deepEqual([start.event, start.source, start.parent_session_key], ["session-start", "resume", "ses_p"]);
  assert.ok(prompt.includes("## Session Recovery Context\nresumed"));
});

test("a session's hooks reach the client in the order they happened", async () => {
  const fake = fakeContinuity({}, { FAKE_CONTINUITY_SLEEP_MS: "150" });
  const hooks = await load(fake);

  // The user's message arrives before the created event is handled
  await hooks["chat.message"]({ sessionID: "ses_3" }, { message: {}, parts: [{ type: "text", text: "hello" }] });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_3" } } });

  assert.deepEqual(
    fake.calls().map((call) => call.event),
    ["session-start", "user-prompt-submit", "stop"],
  );
});

test("a client that is missing or hangs never holds the agent", async () => {
  // Given a command that does not exist
  const missing = fakeContinuity();
  let hooks = await plugin.server({ directory: ROOT, worktree: "/" }, { command: ["/nonexistent/continuity"], env: missing.env });
  // Then the request goes on with nothing added
  assert.deepEqual(await system(hooks, "ses_1"), ["You are OpenCode."]);

  // Given a client that hangs past the plugin's backstop
  const slow = fakeContinuity({ "session-start": "late" }, { FAKE_CONTINUITY_SLEEP_MS: "5000" });
  hooks = await plugin.server({ directory: ROOT, worktree: "/" }, { command: slow.command, env: slow.env, timeoutMs: 300 });
  const started = Date.now();
  assert.deepEqual(await system(hooks, "ses_1"), ["You are OpenCode."]);
  assert.ok(Date.now() - started < 3000);
});
