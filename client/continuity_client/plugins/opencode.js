// Continuity for OpenCode: its session events become our hooks, and the recovery block comes back
// into the session's system prompt and into the compaction prompt.
//
// Plain JavaScript (an ES module, no build step): OpenCode imports plugin files as they are, and
// the client ships this file inside its Python package, so nothing has to be compiled to install.
// `continuity install opencode` adds it to opencode.json as ["file://…/opencode.js", {command}].
//
// | OpenCode                                  | our hook                                        |
// |-------------------------------------------|-------------------------------------------------|
// | event session.created (info.parentID)     | session-start (parent_session_key: a sub-agent) |
// | chat.message (the user's message)         | user-prompt-submit                              |
// | experimental.session.compacting           | pre-compaction; its answer goes into the        |
// |                                           | compaction prompt (output.context)              |
// | event session.compacted                   | session-start, source=compact                   |
// | event session.idle                        | stop (the turn's transcript lands now)          |
// | event session.deleted                     | session-end, reason=deleted                     |
// | experimental.chat.system.transform        | injects the session's block (recovery, inherited|
// |                                           | context) on every request until the next        |
// |                                           | compaction replaces it; a prompt's answer (the  |
// |                                           | compaction nudge) for the rest of its turn      |
//
// The transcript: OpenCode keeps sessions in its own storage (a SQLite database since 1.2, JSON
// files before); its SDK's session.messages() reads it whichever it is. Before each hook that
// carries the transcript, the finished messages not yet copied are appended, one JSON line each
// ({info, parts}, long tool output cut), to $CONTINUITY_HOME/opencode/<session>.jsonl, the
// transcript_path the client reads like any harness's file. Only finished messages, in order,
// so the file only grows and its text never changes. The user's message is not finished when
// chat.message fires: OpenCode calls the hook first, then saves the message, then its parts one
// by one, so the copy made for user-prompt-submit stops before it (its words are in the hook's
// prompt) and the next copy (the turn's stop) takes it whole.
//
// Only a default export {id, server}: OpenCode calls every exported function of a plugin file as
// a plugin, so nothing else may be exported.

import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

import { SessionQueue, compact, resolveCommand, runHook } from "./continuity-hook.mjs";

const HARNESS = "opencode";
const RECENT_MESSAGES = 64; // read this many newest messages first; all of them only when more is new
const MAX_OUTPUT_CHARS = 4000; // a tool's output in the copy (the transcript keeps 500)
const MAX_TEXT_CHARS = 32000;

function cut(text, limit) {
  return typeof text === "string" && text.length > limit ? text.slice(0, limit) : text;
}

function transcriptDir(env) {
  return join(env.CONTINUITY_HOME || join(env.HOME || homedir(), ".continuity"), "opencode");
}

// A message as the transcript needs it: no attachments' data, no diffs, tool output cut.
function slim({ info, parts }) {
  const keep = {
    id: info.id,
    sessionID: info.sessionID,
    role: info.role,
    time: info.time,
    summary: info.role === "assistant" ? info.summary : undefined,
    tokens: info.tokens,
    error: info.error ? { name: info.error.name } : undefined,
  };
  const kept = (parts || []).map((part) => {
    const out = { type: part.type };
    for (const key of ["text", "synthetic", "ignored", "tool", "filename", "mime", "auto", "description"]) {
      if (part[key] !== undefined) out[key] = key === "text" ? cut(part.text, MAX_TEXT_CHARS) : part[key];
    }
    if (part.state) {
      const { status, input, output, error } = part.state;
      out.state = { status, input, output: cut(output, MAX_OUTPUT_CHARS), error: cut(error, MAX_OUTPUT_CHARS) };
    }
    return out;
  });
  return { info: keep, parts: kept };
}

function finished({ info }) {
  return info.role === "user" || Boolean(info.time?.completed) || Boolean(info.error);
}

function promptText(parts) {
  return (parts || [])
    .filter((part) => part.type === "text" && !part.synthetic && !part.ignored && part.text)
    .map((part) => part.text)
    .join("\n");
}

/** The plugin: OpenCode calls it once per project with its client, directory and worktree. */
async function server(input, options = {}) {
  const { client, directory, worktree } = input || {};
  const env = options.env || process.env;
  const command = resolveCommand(options.command, env);
  const timeoutMs = options.timeoutMs;
  const queue = new SessionQueue();
  const sessions = new Map(); // session id -> what we know and hold for it
  const dir = transcriptDir(env);
  // The project root: the git worktree (OpenCode says "/" outside one), else the directory.
  const root = worktree && worktree !== "/" ? worktree : directory;

  const hook = (event, id, fields) =>
    runHook(command, event, HARNESS, compact({ session_id: id, cwd: sessions.get(id)?.root || root, ...fields }), { env, timeoutMs });

  function session(id) {
    let known = sessions.get(id);
    if (!known) {
      const file = join(dir, `${id.replace(/[^A-Za-z0-9_.-]/g, "_")}.jsonl`);
      known = { root, block: null, turn: null, start: null, refresh: null, written: null, file };
      sessions.set(id, known);
    }
    return known;
  }

  async function sessionInfo(id) {
    try {
      return (await client?.session?.get?.({ path: { id } }))?.data ?? null;
    } catch {
      return null;
    }
  }

  // session-start once per session, with what OpenCode says of it: the created event, or for a
  // session this plugin first meets later (OpenCode restarted, `--continue`), a lookup: a resume.
  function start(id, info) {
    const known = session(id);
    if (!known.start) {
      known.start = queue.run(id, async () => {
        const about = info || (await sessionInfo(id));
        if (about?.directory && !(worktree && worktree !== "/")) known.root = about.directory;
        known.block = await hook("session-start", id, {
          source: info ? "startup" : "resume",
          parent_session_key: about?.parentID,
          hook_event_name: "session.created",
        });
      });
    }
    return known.start;
  }

  // Append the finished messages not yet copied, up to `unsaved` (a message OpenCode is still
  // saving) when given; answers the copy's path (null when unreadable).
  async function copyTranscript(id, unsaved) {
    const known = session(id);
    try {
      if (!known.written) known.written = readWritten(known.file);
      const read = async (limit) => (await client.session.messages({ path: { id }, query: limit ? { limit } : undefined }))?.data ?? [];
      let messages = await read(known.written.size ? RECENT_MESSAGES : 0);
      if (messages.length >= RECENT_MESSAGES && !known.written.has(messages[0]?.info?.id)) messages = await read(0);
      const lines = [];
      for (const message of messages) {
        if (!message?.info?.id || known.written.has(message.info.id)) continue;
        // Later messages wait for it: the copy keeps OpenCode's order.
        if (!finished(message) || message.info.id === unsaved) break;
        lines.push(JSON.stringify(slim(message)));
        known.written.add(message.info.id);
      }
      if (lines.length) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        appendFileSync(known.file, `${lines.join("\n")}\n`, { mode: 0o600 });
      }
      return known.file;
    } catch {
      return known.written?.size ? known.file : null;
    }
  }

  function transcriptHook(event, id, fields, unsaved) {
    start(id);
    return queue.run(id, async () => hook(event, id, { ...fields, transcript_path: await copyTranscript(id, unsaved) }));
  }

  return {
    event: async ({ event }) => {
      const props = event?.properties || {};
      if (event?.type === "session.created" && props.info?.id) {
        start(props.info.id, props.info);
      } else if (event?.type === "session.compacted" && props.sessionID) {
        const known = session(props.sessionID);
        start(props.sessionID);
        // The request that continues after the compaction waits for this (the transform below).
        known.refresh = queue.run(props.sessionID, async () => {
          const block = await hook("session-start", props.sessionID, { source: "compact", hook_event_name: "session.compacted" });
          if (block) known.block = block; // the recovery the compacted context starts from
        });
        await known.refresh;
      } else if (event?.type === "session.idle" && props.sessionID) {
        await transcriptHook("stop", props.sessionID, { hook_event_name: "session.idle" });
      } else if (event?.type === "session.deleted" && props.info?.id) {
        const id = props.info.id;
        await transcriptHook("session-end", id, { reason: "deleted", hook_event_name: "session.deleted" });
        sessions.delete(id);
      }
    },

    // Not awaited: the user's message goes on at once; the answer (a nudge) joins this turn's requests.
    "chat.message": async (about, output) => {
      const id = about?.sessionID;
      if (!id) return;
      const known = session(id);
      known.turn = null;
      const prompt = promptText(output?.parts);
      if (!prompt) return;
      const unsaved = output?.message?.id ?? about?.messageID;
      transcriptHook("user-prompt-submit", id, { prompt, hook_event_name: "chat.message" }, unsaved).then((answer) => {
        if (answer) known.turn = answer;
      });
    },

    "experimental.chat.system.transform": async (about, output) => {
      const id = about?.sessionID;
      if (!id || !Array.isArray(output?.system)) return;
      await start(id); // the first request of a session waits for its recovery (the hook's deadline)
      const known = session(id);
      await known.refresh;
      for (const text of [known.block, known.turn]) if (text) output.system.push(text);
    },

    // Awaited by OpenCode: the checkpoint is written before the history is cut, and its recovery
    // block is in the compaction prompt, so the summary keeps what the digest holds.
    "experimental.session.compacting": async (about, output) => {
      const id = about?.sessionID;
      if (!id) return;
      const block = await transcriptHook("pre-compaction", id, { hook_event_name: "experimental.session.compacting" });
      if (block && Array.isArray(output?.context)) output.context.push(block);
    },
  };
}

function readWritten(file) {
  const ids = new Set();
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return ids; // no copy yet
  }
  if (text && !text.endsWith("\n")) appendFileSync(file, "\n"); // a line cut by a crash stays alone
  for (const line of text.split("\n")) {
    try {
      const id = JSON.parse(line)?.info?.id;
      if (id) ids.add(id);
    } catch {
      // a line cut by a crash: its message is copied again, after it
    }
  }
  return ids;
}

export default { id: "continuity", server };
