// Pictures as inline SVG written here: no chart library, no CDN (the page's policy allows scripts
// from this origin only, and a dashboard that must run offline on the local stack cannot fetch one).
// Every picture has its numbers beside it as a table, so a screen reader reads what the eye sees.
import { h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";

export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null && value !== false) el.setAttribute(name, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// What happened along a session's prompts: each mark sits at the prompt it followed.
const MARKS = {
  compaction: { label: "Compaction", shape: "diamond" },
  clear: { label: "Cleared (/clear)", shape: "bar" },
  subagent_start: { label: "Sub-agent start", shape: "circle" },
  checkpoint: { label: "Checkpoint", shape: "tick" },
  agent_digest: { label: "Agent digest", shape: "tick" },
};

/** The strip's marks from a timeline (oldest first): [{kind, prompt, at}] where `prompt` is the
 * prompt the event came after (0: before the first). A cleared session ends in a clear mark. */
export function stripMarks(events, status) {
  const marks = [];
  let prompt = 0;
  for (const e of events) {
    if (e.kind === "prompt") prompt = e.prompt || prompt + 1;
    else if (MARKS[e.kind]) marks.push({ kind: e.kind, prompt: e.kind === "checkpoint" ? e.prompt || prompt : prompt, at: e.at });
  }
  if (status === "cleared") marks.push({ kind: "clear", prompt, at: null });
  return { marks, prompts: prompt };
}

export function sessionStrip(events, status) {
  const { marks, prompts } = stripMarks(events, status);
  const width = 800;
  const left = 10;
  const span = width - 2 * left;
  const x = (p) => left + (prompts ? (span * p) / prompts : 0);
  const rows = { checkpoint: 18, agent_digest: 18, compaction: 40, clear: 40, subagent_start: 62 };
  const shape = (m) => {
    const cx = x(m.prompt);
    const cy = rows[m.kind];
    const title = svg("title", {}, `${MARKS[m.kind].label} after prompt ${m.prompt}`);
    const cls = `mark ${m.kind}`;
    if (MARKS[m.kind].shape === "diamond")
      return svg("path", { class: cls, d: `M${cx} ${cy - 7}l7 7-7 7-7-7z`, "data-kind": m.kind, "data-prompt": m.prompt }, title);
    if (MARKS[m.kind].shape === "circle")
      return svg("circle", { class: cls, cx, cy, r: 6, "data-kind": m.kind, "data-prompt": m.prompt }, title);
    if (MARKS[m.kind].shape === "bar")
      return svg("rect", { class: cls, x: cx - 2, y: cy - 10, width: 4, height: 20, "data-kind": m.kind, "data-prompt": m.prompt }, title);
    return svg("rect", { class: cls, x: cx - 1, y: cy - 7, width: 2, height: 14, "data-kind": m.kind, "data-prompt": m.prompt }, title);
  };
  const ticks = [];
  const step = Math.max(1, Math.ceil(prompts / 10));
  for (let p = 0; p <= prompts; p += step) {
    ticks.push(
      svg("line", { class: "axis-tick", x1: x(p), x2: x(p), y1: 76, y2: 80 }),
      svg("text", { class: "axis-label", x: x(p), y: 94 }, p),
    );
  }
  const counts = Object.keys(MARKS).map((kind) => [kind, marks.filter((m) => m.kind === kind)]);
  const summary = counts
    .filter(([, found]) => found.length)
    .map(([kind, found]) => `${found.length} ${MARKS[kind].label.toLowerCase()}`)
    .join(", ");
  const picture = svg(
    "svg",
    {
      class: "strip",
      viewBox: `0 0 ${width} 100`,
      role: "img",
      "aria-label": `Along ${prompts} prompts: ${summary || "nothing but prompts"}.`,
      preserveAspectRatio: "none",
    },
    svg("line", { class: "axis", x1: left, x2: width - left, y1: 76, y2: 76 }),
    ticks,
    marks.map(shape),
  );
  const table = h(
    "table",
    { class: "rows compact" },
    h("caption", {}, "Where each happened"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "What"), h("th", { scope: "col" }, "After prompts"))),
    h(
      "tbody",
      {},
      counts
        .filter(([, found]) => found.length)
        .map(([kind, found]) =>
          h(
            "tr",
            { "data-kind": kind },
            h("td", { "data-label": "What" }, MARKS[kind].label),
            h("td", { "data-label": "After prompts" }, found.map((m) => m.prompt).join(", ")),
          ),
        ),
    ),
  );
  return h(
    "figure",
    { class: "chart", id: "strip" },
    picture,
    h(
      "figcaption",
      { class: "legend" },
      Object.entries(MARKS)
        .filter(([kind]) => kind !== "agent_digest")
        .map(([kind, m]) => h("span", { class: `key ${kind}` }, m.label)),
      " · prompts 0–",
      String(prompts),
    ),
    h("details", {}, h("summary", {}, "As a table"), table),
  );
}
