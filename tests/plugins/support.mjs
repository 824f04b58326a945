// Shared by the plugin tests: a fake `continuity` that records each hook, and waiting for hooks
// the plugins post without waiting themselves.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const PLUGINS = fileURLToPath(new URL("../../client/continuity_client/plugins/", import.meta.url));
const FAKE = fileURLToPath(new URL("./fake-continuity.mjs", import.meta.url));

/** A fake client: `command` for the plugin's options, `env` for its hooks, `calls()` what it ran. */
export function fakeContinuity(answers = {}, extra = {}) {
  const dir = mkdtempSync(join(tmpdir(), "continuity-plugin-"));
  const log = join(dir, "calls.jsonl");
  const env = {
    ...process.env,
    HOME: dir,
    CONTINUITY_HOME: join(dir, ".continuity"),
    FAKE_CONTINUITY_LOG: log,
    FAKE_CONTINUITY_ANSWERS: JSON.stringify(answers),
    ...extra,
  };
  const calls = () => {
    let text = "";
    try {
      text = readFileSync(log, "utf8");
    } catch {
      return [];
    }
    return text
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const { argv, payload } = JSON.parse(line);
        return { event: argv[1], harness: argv[3], argv, ...payload };
      });
  };
  return { dir, env, command: [process.execPath, FAKE], calls };
}

/** Resolve once `check()` is true (the plugins post some hooks without waiting for them). */
export async function eventually(check, timeoutMs = 5000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error("timed out waiting for the plugin");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
