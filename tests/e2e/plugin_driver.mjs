// Plays a harness for the e2e plugin tests: loads our plugin the way OpenCode or OpenClaw does,
// from what `continuity install` wrote into their config, and calls its hooks in the order a
// scenario (JSON on stdin) gives. Prints what the plugin answered: the values of the steps marked
// "collect", as JSON. The plugin runs the real `continuity hook` against the service it is given.
//
// {"harness": "opencode", "config": <opencode.json>, "project": "/dir", "sessions": {id: Session},
//  "steps": [{"hook": "event" | "chat.message" | ..., "input": ..., "output": ..., "messages": {id: [...]},
//             "collect": "name"}]}
// {"harness": "openclaw", "config": <openclaw.json>,
//  "steps": [{"hook": "before_prompt_build", "event": ..., "ctx": ..., "collect": "name"}]}
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const scenario = JSON.parse(readFileSync(0, "utf8"));
const results = {};

async function opencode() {
  // OpenCode reads its config's "plugin" list: [spec, options] tuples, file:// specs imported as they are.
  const [spec, options] = scenario.config.plugin.find((entry) => Array.isArray(entry) && entry[0].endsWith("/opencode.js"));
  const { default: plugin } = await import(spec);
  const store = {};
  const client = {
    session: {
      get: async ({ path }) => ({ data: scenario.sessions?.[path.id] ?? null }),
      messages: async ({ path, query }) => {
        const all = store[path.id] ?? [];
        return { data: query?.limit ? all.slice(-query.limit) : all };
      },
    },
  };
  const project = scenario.project;
  const hooks = await plugin.server({ client, project: { id: "p", worktree: project }, directory: project, worktree: project }, options);
  for (const step of scenario.steps) {
    Object.assign(store, step.messages || {});
    const output = step.output ?? {};
    await hooks[step.hook](step.input, output);
    if (step.collect) results[step.collect] = output;
  }
}

async function openclaw() {
  // OpenClaw reads plugins.load.paths, the folder's package.json (openclaw.extensions) and its manifest.
  const root = scenario.config.plugins.load.paths.find((path) => path.endsWith("plugins"));
  const manifest = JSON.parse(readFileSync(join(root, "openclaw.plugin.json"), "utf8"));
  const entry = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).openclaw.extensions[0];
  const { default: plugin } = await import(pathToFileURL(join(root, entry)).href);
  const settings = scenario.config.plugins.entries[manifest.id];
  if (plugin.id !== manifest.id || !settings.enabled || !settings.hooks.allowConversationAccess) {
    throw new Error("the plugin would not load with these settings");
  }
  const handlers = new Map();
  const logger = { debug() {}, info() {}, warn: (text) => console.error(text), error: (text) => console.error(text) };
  plugin.register({ id: manifest.id, pluginConfig: settings.config, logger, on: (name, handler) => handlers.set(name, handler) });
  for (const step of scenario.steps) {
    const value = await handlers.get(step.hook)(step.event, step.ctx);
    if (step.collect) results[step.collect] = value ?? null;
  }
}

await (scenario.harness === "opencode" ? opencode() : openclaw());
process.stdout.write(JSON.stringify(results));
