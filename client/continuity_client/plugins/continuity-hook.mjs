// Continuity plugin support: run one `continuity hook <event> --harness <name>` for a plugin.
//
// Why a child process and not HTTPS from here: the Python client already owns the protocol (the
// token in ~/.continuity/config.json, the offline spool and its replay order, idempotency keys
// counted per session on disk, transcript deltas and the 409 mending, the back-off and its
// watchdog). Spawning it with the hook JSON on stdin gives every harness one client and one
// spool format; a plugin only maps its events to ours and injects what the hook prints.
//
// Never harming the agent: a hook never throws and never rejects, a failure answers null, and
// a child still running after `timeoutMs` (a backstop: the hook's own deadline is 2-4 s) is
// killed. Shared by the OpenCode and OpenClaw plugins; `continuity install` copies it beside them.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const HOOK_TIMEOUT_MS = 10_000;
const MAX_OUTPUT_BYTES = 1 << 20;
// Written by `continuity install` beside this module: {"command": ["/abs/path/continuity"]}.
const COMMAND_FILE = "command.json";

/** The command that runs the client: the plugin's option, $CONTINUITY_COMMAND, install's choice, else PATH. */
export function resolveCommand(option, env = process.env, here = dirname(fileURLToPath(import.meta.url))) {
  if (Array.isArray(option) && option.length && option.every((part) => typeof part === "string")) return option;
  if (typeof option === "string" && option.trim()) return [option.trim()];
  if (env.CONTINUITY_COMMAND?.trim()) return [env.CONTINUITY_COMMAND.trim()];
  try {
    const saved = JSON.parse(readFileSync(join(here, COMMAND_FILE), "utf8")).command;
    if (Array.isArray(saved) && saved.length && saved.every((part) => typeof part === "string")) return saved;
  } catch {
    // no install record (a development checkout): the PATH's continuity
  }
  return ["continuity"];
}

/** The context a hook printed (`hookSpecificOutput.additionalContext`), or null. */
export function contextOf(stdout) {
  try {
    const context = JSON.parse(stdout)?.hookSpecificOutput?.additionalContext;
    return typeof context === "string" && context.trim() ? context : null;
  } catch {
    return null;
  }
}

/**
 * Run one hook; resolves with its context (null when none, on any failure, or when detached).
 * `detached`: the child outlives this process (a Gateway shutting down); nothing is awaited but
 * the write of its input.
 */
export function runHook(command, event, harness, payload, { env = process.env, timeoutMs = HOOK_TIMEOUT_MS, detached = false } = {}) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command[0], [...command.slice(1), "hook", event, "--harness", harness], {
        env,
        stdio: ["pipe", detached ? "ignore" : "pipe", "ignore"],
        detached,
        windowsHide: true,
      });
    } catch {
      resolve(null);
      return;
    }
    let output = "";
    let settled = false;
    const finish = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(null);
    }, timeoutMs);
    child.on("error", () => finish(null)); // not installed, not executable
    child.stdin.on("error", () => {}); // the hook exited before reading (bad arguments): EPIPE
    if (detached) {
      child.unref();
      child.stdin.end(JSON.stringify(payload), () => finish(null));
      return;
    }
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      if (output.length < MAX_OUTPUT_BYTES) output += chunk;
    });
    child.on("close", () => finish(contextOf(output)));
    child.stdin.end(JSON.stringify(payload));
  });
}

/** One chain of work per session key: a session's hooks reach the client in the order they happened. */
export class SessionQueue {
  constructor() {
    this.tails = new Map();
  }

  run(key, task) {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task).catch(() => null);
    this.tails.set(key, next);
    next.then(() => {
      if (this.tails.get(key) === next) this.tails.delete(key);
    });
    return next;
  }
}

/** Drop undefined, null and empty-string fields: the hook's JSON carries only what is known. */
export function compact(fields) {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null && value !== ""));
}
