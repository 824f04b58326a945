// A stand-in for `continuity hook <event> --harness <name>` in the plugin tests: it records what
// the plugin ran (argv and the JSON on stdin) and prints the answer the test chose for the event.
//   FAKE_CONTINUITY_LOG      file the calls are appended to, one JSON line each
//   FAKE_CONTINUITY_ANSWERS  {"<event>" or "<event>:<source>": "context to print"}
//   FAKE_CONTINUITY_SLEEP_MS wait this long before answering (a hook that hangs)
import { appendFileSync, readFileSync } from "node:fs";

const argv = process.argv.slice(2);
const event = argv[1];
const payload = JSON.parse(readFileSync(0, "utf8") || "{}");
appendFileSync(process.env.FAKE_CONTINUITY_LOG, `${JSON.stringify({ argv, payload })}\n`);
const sleep = Number(process.env.FAKE_CONTINUITY_SLEEP_MS || 0);
if (sleep) await new Promise((resolve) => setTimeout(resolve, sleep));
const answers = JSON.parse(process.env.FAKE_CONTINUITY_ANSWERS || "{}");
const context = answers[`${event}:${payload.source}`] ?? answers[event];
if (context) {
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "any", additionalContext: context } }));
}
