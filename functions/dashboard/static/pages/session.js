// One session: its timeline, its rolling digest (sticky facts with provenance), its transcript by turn.
import { get, key } from "../api.js";
import { empty, failure, h, loading, moment, show, text, when } from "../dom.js";
import { sessionStrip } from "../charts.js";
import { injectionList } from "./injections.js";
import { lineageList } from "./lineage.js";

const KIND_LABELS = {
  session_start: "Session start",
  prompt: "Prompt",
  checkpoint: "Checkpoint",
  compaction: "Compaction",
  agent_digest: "Agent digest",
  remember: "Remembered",
  subagent_start: "Sub-agent start",
  session_end: "Session end",
};

// Live: the timeline is asked again while the tab is visible, every 2 s while hooks keep coming,
// doubling to 30 s while nothing changes (and after an error), back to 2 s as soon as something
// does. Polling, not server-sent events: API Gateway's HTTP API answers a Lambda in one piece (no
// stream), and a connection held open would bill a 1 GB function for every second a tab is open
// (900 s a quarter hour: ~0.015 USD) where an idle tab's polls cost ~30 short calls (~0.0001 USD).
export const LIVE_FIRST_MS = 2_000;
export const LIVE_MAX_MS = 30_000;

export async function sessionPage(root, [sessionKey], _params, signal) {
  loading(root, "the session");
  // Three requests, side by side, whatever the session holds.
  const [timelineAnswer, injectionsAnswer, lineageAnswer] = await Promise.allSettled([
    get(`/api/sessions/${key(sessionKey)}/timeline`),
    get(`/api/sessions/${key(sessionKey)}/injections`),
    get(`/api/sessions/${key(sessionKey)}/lineage`),
  ]);
  if (signal?.aborted) return;
  if (timelineAnswer.status === "rejected") {
    const why = timelineAnswer.reason;
    const next =
      why.status === 404
        ? "Nothing is stored for this session: check the key, or open it from the Sessions page once its first hook has arrived."
        : "Reload the page to try again.";
    show(root, h("h1", {}, sessionKey), failure(why), empty(next));
    return;
  }
  const draw = (data) => drawSession(root, sessionKey, data, injectionsAnswer, lineageAnswer);
  draw(timelineAnswer.value);
  live(sessionKey, timelineAnswer.value, draw, signal);
}

function signature(data) {
  const last = data.events[data.events.length - 1];
  const s = data.session || {};
  return [data.events.length, last?.at, last?.kind, s.prompts, s.status, s.checkpoints, data.turns.length].join("|");
}

function live(sessionKey, first, draw, signal) {
  if (!signal) return;
  let wait = LIVE_FIRST_MS;
  let seen = signature(first);
  let timer;
  const stamp = document.getElementById("live");
  const again = () => {
    timer = setTimeout(poll, wait);
  };
  const poll = async () => {
    if (document.visibilityState !== "visible") return again();
    try {
      const data = await get(`/api/sessions/${key(sessionKey)}/timeline`);
      if (signal.aborted) return;
      const now = signature(data);
      if (now !== seen) {
        seen = now;
        wait = LIVE_FIRST_MS;
        draw(data);
      } else wait = Math.min(LIVE_MAX_MS, wait * 2);
      const line = document.getElementById("live") || stamp;
      if (line) line.textContent = `Live: checked ${new Date().toLocaleTimeString()}; next in ${wait / 1000} s.`;
    } catch (error) {
      if (signal.aborted) return;
      wait = LIVE_MAX_MS;
      const line = document.getElementById("live");
      if (line) line.textContent = `Live updates paused (${error.message}); trying again in ${wait / 1000} s.`;
    }
    again();
  };
  signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  again();
}

function drawSession(root, sessionKey, data, injectionsAnswer, lineageAnswer) {
  const settled = (answer, render) => (answer.status === "fulfilled" ? render(answer.value) : failure(answer.reason));
  const s = data.session;
  const timelineBox = document.querySelector("#timeline");
  const scrolled = timelineBox ? timelineBox.scrollTop : 0;
  show(
    root,
    h("h1", {}, "Session ", h("code", {}, sessionKey)),
    s
      ? h(
          "p",
          { class: "meta", id: "session-meta" },
          `${s.harness || "?"} · ${s.status} · ${s.prompts} prompts · ${s.checkpoints} checkpoints · ` +
            `${s.compactions} compactions · ${s.subagents} sub-agents · ${s.project || ""}`,
        )
      : null,
    h("p", { class: "hint", id: "live", role: "status" }, "Live: updates as hooks arrive."),
    h(
      "section",
      { "aria-labelledby": "strip-h", class: "card" },
      h("h2", { id: "strip-h" }, "Along the prompts"),
      data.events.some((e) => e.kind === "prompt")
        ? sessionStrip(data.events, s?.status)
        : empty("No prompt yet: the strip fills as prompts arrive."),
    ),
    h(
      "div",
      { class: "columns" },
      h(
        "section",
        { "aria-labelledby": "timeline-h", class: "card" },
        h("h2", { id: "timeline-h" }, "Timeline"),
        timeline(sessionKey, data.events),
      ),
      h(
        "section",
        { "aria-labelledby": "digest-h", class: "card" },
        h("h2", { id: "digest-h" }, "Rolling digest"),
        digest(sessionKey, data),
      ),
    ),
    h(
      "div",
      { class: "columns" },
      h(
        "section",
        { "aria-labelledby": "injections-h", class: "card" },
        h(
          "h2",
          { id: "injections-h" },
          "Injected at start ",
          h("a", { class: "hint", href: `#/injections/${key(sessionKey)}` }, "(inspector)"),
        ),
        settled(injectionsAnswer, (d) => injectionList(d.injections.slice(0, 3))),
      ),
      h(
        "section",
        { "aria-labelledby": "lineage-h", class: "card" },
        h("h2", { id: "lineage-h" }, "Lineage ", h("a", { class: "hint", href: `#/lineage/${key(sessionKey)}` }, "(view)")),
        settled(lineageAnswer, lineageList),
      ),
    ),
    h("section", { "aria-labelledby": "transcript-h", class: "card" }, h("h2", { id: "transcript-h" }, "Transcript"), transcript(data)),
  );
  const box = document.querySelector("#timeline");
  if (box) box.scrollTop = scrolled;
}

function timeline(sessionKey, events) {
  if (!events.length) return empty("Nothing happened yet: events appear here as the session's hooks arrive.");
  return h(
    "ol",
    { class: "timeline", id: "timeline" },
    events.map((e) => {
      const label = e.trigger && e.kind === "checkpoint" ? `Checkpoint (${e.trigger.replace("_", " ")})` : KIND_LABELS[e.kind] || e.kind;
      let title = label;
      if (e.sequence) title = h("a", { href: `#/checkpoint/${key(sessionKey)}/${e.sequence}` }, `${label} #${e.sequence}`);
      else if (e.session_key) title = h("a", { href: `#/session/${key(e.session_key)}` }, label);
      return h(
        "li",
        { class: `event ${e.kind}`, "data-kind": e.kind },
        h("span", { class: "kind" }, title),
        h("time", { datetime: e.at || "" }, moment(e.at)),
        e.prompt ? h("span", { class: "hint" }, ` · prompt ${e.prompt}`) : null,
        e.text ? h("div", { class: "event-text" }, text(e.text)) : null,
      );
    }),
  );
}

export function factList(facts) {
  return h(
    "ul",
    { class: "facts" },
    facts.map((f) =>
      h(
        "li",
        { class: `fact ${f.status}`, "data-kind": f.kind },
        h("span", { class: "badge" }, f.kind.replace("_", " ")),
        " ",
        text(f.text),
        h(
          "span",
          { class: "provenance" },
          ` — ${f.source.replace("_", " ")}${f.prompt ? `, prompt ${f.prompt}` : ""}, ${when(f.at)}${f.seen > 1 ? `, said ${f.seen}×` : ""}${f.status !== "active" ? `, ${f.status}${f.ended_by ? ` by “${f.ended_by}”` : ""}` : ""}`,
        ),
      ),
    ),
  );
}

function digest(sessionKey, data) {
  const d = data.digest;
  if (!d || (!d.facts.length && !d.last_instruction)) return empty("No rolling digest yet: it is written with the first checkpoint.");
  const active = d.facts.filter((f) => f.status === "active");
  const ended = d.facts.filter((f) => f.status !== "active");
  return h(
    "div",
    { id: "digest" },
    h(
      "p",
      { class: "hint" },
      "As of ",
      h("a", { href: `#/checkpoint/${key(sessionKey)}/${data.digest_sequence}` }, `checkpoint #${data.digest_sequence}`),
      `, ${d.prompts} prompts read.`,
    ),
    d.last_instruction ? h("p", {}, h("strong", {}, "Last instruction: "), text(d.last_instruction.text)) : null,
    d.summary ? h("p", {}, h("strong", {}, "Agent's summary: "), text(d.summary.text)) : null,
    factList(active),
    ended.length ? h("details", {}, h("summary", {}, `${ended.length} superseded or closed`), factList(ended)) : null,
  );
}

function transcript(data) {
  if (!data.turns.length)
    return empty(
      "No transcript stored for this session: the client sends it with each hook (continuity install, then continuity doctor to check).",
    );
  return h(
    "div",
    { id: "transcript" },
    data.turns.map((turn) =>
      h(
        "article",
        { class: "turn", "aria-label": `Turn ${turn.number}` },
        h(
          "h3",
          {},
          turn.number ? `Turn ${turn.number}` : "Before the first prompt",
          h("time", { datetime: turn.at || "" }, ` · ${when(turn.at)}`),
        ),
        turn.blocks.map((b) =>
          h("div", { class: `block ${b.label.toLowerCase()}` }, h("span", { class: "label" }, b.label), h("pre", {}, text(b.text))),
        ),
      ),
    ),
    data.transcript_next_offset
      ? h(
          "p",
          { class: "hint" },
          `The transcript goes on past ${data.transcript_next_offset} characters (read it through /api/sessions/…/transcript).`,
        )
      : null,
  );
}
