// One session: its timeline, its rolling digest (sticky facts with provenance), its transcript by turn.
import { get, key } from "../api.js";
import { empty, failure, h, loading, show, text, when } from "../dom.js";
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

export async function sessionPage(root, [sessionKey]) {
  loading(root, "the session");
  // Three requests, side by side, whatever the session holds.
  const [timelineAnswer, injectionsAnswer, lineageAnswer] = await Promise.allSettled([
    get(`/api/sessions/${key(sessionKey)}/timeline`),
    get(`/api/sessions/${key(sessionKey)}/injections`),
    get(`/api/sessions/${key(sessionKey)}/lineage`),
  ]);
  if (timelineAnswer.status === "rejected") {
    show(root, h("h1", {}, sessionKey), failure(timelineAnswer.reason));
    return;
  }
  const data = timelineAnswer.value;
  const settled = (answer, render) => (answer.status === "fulfilled" ? render(answer.value) : failure(answer.reason));
  const s = data.session;
  show(
    root,
    h("h1", {}, "Session ", h("code", {}, sessionKey)),
    s
      ? h(
          "p",
          { class: "meta" },
          `${s.harness || "?"} · ${s.status} · ${s.prompts} prompts · ${s.checkpoints} checkpoints · ` +
            `${s.compactions} compactions · ${s.subagents} sub-agents · ${s.project || ""}`,
        )
      : null,
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
}

function timeline(sessionKey, events) {
  if (!events.length) return empty("Nothing happened yet.");
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
        h("time", { datetime: e.at || "" }, when(e.at)),
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
  if (!data.turns.length) return empty("No transcript stored for this session.");
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
