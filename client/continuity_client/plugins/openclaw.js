// Continuity for OpenClaw: its typed plugin hooks become our hooks, and the recovery or inherited
// block comes back through before_prompt_build.
//
// Plain JavaScript (an ES module, no build step), loaded in place from the client's package
// (`continuity install openclaw` adds this folder to plugins.load.paths and enables the plugin
// with the conversation access before_prompt_build needs).
//
// | OpenClaw (api.on)                            | our hook                                      |
// |----------------------------------------------|-----------------------------------------------|
// | session_start                                | remembered; session-start is posted at the    |
// |                                              | session's first before_prompt_build, which    |
// |                                              | knows the workspace (the project)             |
// | before_prompt_build                          | session-start (once), user-prompt-submit      |
// | session_end (reason)                         | session-end; new/reset -> reason=clear, so    |
// |                                              | the next session recovers what was cleared;   |
// |                                              | compaction -> nothing (before_compaction did) |
// | before_compaction                            | pre-compaction (the checkpoint before the cut)|
// | after_compaction                             | session-start, source=compact                 |
// | subagent_spawned                             | the child's parent (requesterSessionKey);     |
// |                                              | subagent-start if the child already started   |
// | subagent_ended                               | session-end of the child (its outcome)        |
//
// Sessions are OpenClaw's session keys (agent:<id>:main, agent:<target>:subagent:<uuid>, ...):
// they outlive /new and compaction, which replace only the session id. A sub-agent's parent is
// the requester's key when OpenClaw gives it (the target agent in the child's key may be another
// agent), else the service reads it from the key (agent:<target>:main).
//
// The block (recovery, inherited context) is returned as prependSystemContext on every prompt
// build of the session until a compaction or a new session replaces it: the system prompt is
// cached by providers, and OpenClaw keeps prependContext out of the transcript, so a block sent
// once would be gone from the second turn on. A prompt's own answer (the compaction nudge) is
// one-shot prependContext on the next build. `subagent_spawning` is not used: OpenClaw removed it
// (subagent_spawned replaces it) and warns about hooks it does not know.

import { SessionQueue, compact, resolveCommand, runHook } from "./continuity-hook.mjs";

const HARNESS = "openclaw";
// OpenClaw's reasons that start the same key over: like Claude Code's /clear.
const CLEARING = new Set(["new", "reset"]);
// The Gateway is going away (2 s for every plugin): the hook outlives it instead of being waited for.
const LEAVING = new Set(["shutdown", "restart"]);

function keyOf(event, ctx) {
  return event?.sessionKey || ctx?.sessionKey || event?.sessionId || ctx?.sessionId || null;
}

// The user's own words start a turn; heartbeats, cron and other sessions' messages do not.
function fromUser(ctx) {
  const kind = ctx?.inputProvenance?.kind;
  if (kind && kind !== "external_user") return false;
  return !ctx?.trigger || ctx.trigger === "user";
}

export function createContinuity({ command, env = process.env, timeoutMs, log } = {}) {
  const argv = resolveCommand(command, env);
  const queue = new SessionQueue();
  const sessions = new Map();

  function session(key) {
    let known = sessions.get(key);
    if (!known) {
      known = {
        workspace: null,
        source: "startup",
        previous: null,
        parent: null,
        started: null,
        startedWith: null,
        block: null,
        nudge: null,
        prompts: new Set(),
      };
      sessions.set(key, known);
    }
    return known;
  }

  const hook = (event, key, fields, extra) =>
    runHook(argv, event, HARNESS, compact({ session_id: key, cwd: sessions.get(key)?.workspace, ...fields }), { env, timeoutMs, ...extra });

  function start(key) {
    const known = session(key);
    if (!known.started) {
      known.startedWith = known.parent;
      known.started = queue.run(key, async () => {
        known.block = await hook("session-start", key, {
          source: known.source,
          previous_session_key: known.previous,
          parent_session_key: known.parent,
          hook_event_name: "session_start",
        });
      });
    }
    return known.started;
  }

  const handlers = {
    session_start(event, ctx) {
      const key = keyOf(event, ctx);
      if (!key) return;
      const known = session(key);
      if (event?.resumedFrom && known.source === "startup") known.source = "resume";
      known.started = null; // a new session id under this key: start again at its first prompt
    },

    session_end(event, ctx) {
      const key = keyOf(event, ctx);
      const reason = event?.reason || "unknown";
      if (!key || reason === "compaction") return;
      const clearing = CLEARING.has(reason);
      const next = event?.nextSessionKey;
      const done = queue.run(key, () =>
        hook(
          "session-end",
          key,
          { reason: clearing ? "clear" : reason, hook_event_name: "session_end" },
          { detached: LEAVING.has(reason) },
        ),
      );
      const known = session(key);
      Object.assign(known, { started: null, block: null, nudge: null, source: clearing ? "clear" : "startup" });
      if (clearing && next && next !== key) Object.assign(session(next), { source: "clear", previous: key });
      return LEAVING.has(reason) ? undefined : done;
    },

    before_compaction(event, ctx) {
      const key = keyOf(event, ctx);
      if (!key) return;
      if (ctx?.workspaceDir) session(key).workspace = ctx.workspaceDir;
      return queue.run(key, () => hook("pre-compaction", key, { hook_event_name: "before_compaction" }));
    },

    after_compaction(event, ctx) {
      const key = keyOf(event, ctx);
      if (!key) return;
      const known = session(key);
      return queue.run(key, async () => {
        const block = await hook("session-start", key, { source: "compact", hook_event_name: "after_compaction" });
        if (block) known.block = block;
      });
    },

    subagent_spawned(event, ctx) {
      const child = event?.childSessionKey || ctx?.childSessionKey;
      const parent = ctx?.requesterSessionKey;
      if (!child || !parent || parent === child) return;
      const known = session(child);
      known.parent = parent;
      known.workspace = known.workspace || sessions.get(parent)?.workspace || null;
      // Already started without its parent (OpenClaw announces the spawn after the launch): the
      // parent's context now, for the child's next prompt.
      if (!known.started || known.startedWith === parent) return;
      return queue.run(child, async () => {
        const block = await hook("subagent-start", child, {
          parent_session_key: parent,
          agent_type: event?.agentId,
          hook_event_name: "subagent_spawned",
        });
        if (block) known.block = block;
      });
    },

    subagent_ended(event) {
      const key = event?.targetSessionKey;
      if (!key) return;
      const done = queue.run(key, () =>
        hook("session-end", key, { reason: event.outcome || event.reason, hook_event_name: "subagent_ended" }),
      );
      sessions.delete(key);
      return done;
    },

    async before_prompt_build(event, ctx) {
      const key = keyOf(event, ctx);
      if (!key) return;
      const known = session(key);
      if (ctx?.workspaceDir) known.workspace = ctx.workspaceDir;
      await start(key); // the first prompt waits for the recovery (the hook's deadline, 4 s)
      const nudge = known.nudge;
      known.nudge = null;
      const text = typeof event?.currentUserMessage === "string" ? event.currentUserMessage : event?.prompt;
      const id = event?.currentUserMessageId;
      if (text && fromUser(ctx) && !(id && known.prompts.has(id))) {
        if (id) known.prompts.add(id); // a rebuild or retry of the same request is one prompt
        // Not awaited: the turn goes on; the answer (a nudge) comes with the next prompt build.
        queue
          .run(key, () => hook("user-prompt-submit", key, { prompt: text, hook_event_name: "before_prompt_build" }))
          .then((answer) => {
            if (answer) known.nudge = answer;
          });
      }
      return compact({ prependSystemContext: known.block, prependContext: nudge });
    },
  };

  if (log?.debug) log.debug(`continuity: hooks run ${argv.join(" ")}`);
  return { handlers, sessions };
}

export default {
  id: "continuity",
  name: "Continuity",
  description: "Keeps the agent's working context across compaction, /new and sub-agents (Continuity service).",
  register(api) {
    const config = api?.pluginConfig || {};
    const { handlers } = createContinuity({ command: config.command, timeoutMs: config.timeoutMs, log: api?.logger });
    for (const [name, handler] of Object.entries(handlers)) api.on(name, handler);
  },
};
