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
  handoff: { label: "Hand-off", shape: "bar" },
};

/** The strip's marks from a timeline (oldest first): [{kind, prompt, at}] where `prompt` is the
 * prompt the event came after (0: before the first). A cleared session ends in a clear mark. */
export function stripMarks(events, status) {
  const marks = [];
  let prompt = 0;
  for (const e of events) {
    if (e.kind === "prompt") prompt = e.prompt || prompt + 1;
    else if (MARKS[e.kind]) {
      // a hand-off is the checkpoint `continuity handoff` wrote: marked as what it is
      const kind = e.kind === "checkpoint" && e.trigger === "handoff" ? "handoff" : e.kind;
      marks.push({ kind, prompt: e.kind === "checkpoint" ? e.prompt || prompt : prompt, at: e.at });
    }
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
  const rows = { checkpoint: 18, agent_digest: 18, compaction: 40, clear: 40, handoff: 40, subagent_start: 62 };
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

const narrow = () => typeof window !== "undefined" && window.innerWidth < 600;

// A table of the numbers a picture draws, behind "As a table" (read in full by screen readers).
function numbers(caption, head, rows) {
  return h(
    "details",
    {},
    h("summary", {}, "As a table"),
    h(
      "table",
      { class: "rows compact" },
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          head.map((c) => h("th", { scope: "col" }, c)),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((cells) =>
          h(
            "tr",
            {},
            cells.map((c, i) => h("td", { "data-label": head[i] }, c)),
          ),
        ),
      ),
    ),
  );
}

const SERIES = [
  ["prompts", "Prompts checkpointed"],
  ["checkpoints", "Checkpoints"],
  ["compactions", "Compactions"],
  ["recoveries", "Recoveries"],
];

/** Per day: a row of bars for each series, each row scaled to its own largest day. */
export function activityChart(days) {
  // Narrower drawing on a phone, so its labels stay readable once scaled to the screen.
  const width = narrow() ? 380 : 800;
  const rowHeight = 48;
  const label = 0; // each row's label sits above its bars
  const slot = (width - label) / Math.max(1, days.length);
  const rows = SERIES.map(([name, title], row) => {
    const top = row * rowHeight;
    const peak = Math.max(0, ...days.map((d) => d[name]));
    const most = Math.max(1, peak);
    const bars = days.map((d, i) => {
      const height = ((rowHeight - 26) * d[name]) / most;
      return svg(
        "rect",
        {
          class: `bar ${name}`,
          x: label + i * slot + slot * 0.15,
          y: top + rowHeight - 8 - height,
          width: slot * 0.7,
          height: Math.max(d[name] ? 1 : 0, height),
          "data-series": name,
          "data-day": d.day,
          "data-value": d[name],
        },
        svg("title", {}, `${d.day}: ${d[name]} ${title.toLowerCase()}`),
      );
    });
    return svg(
      "g",
      {},
      svg("text", { class: "row-label", x: 0, y: top + 13 }, peak ? `${title} (most in a day: ${peak})` : `${title}: none`),
      svg("line", { class: "axis", x1: label, x2: width, y1: top + rowHeight - 8, y2: top + rowHeight - 8 }),
      bars,
    );
  });
  const totals = SERIES.map(([name, title]) => `${days.reduce((sum, d) => sum + d[name], 0)} ${title.toLowerCase()}`);
  const first = days[0]?.day;
  const last = days[days.length - 1]?.day;
  return h(
    "figure",
    { class: "chart", id: "activity-chart" },
    svg(
      "svg",
      {
        viewBox: `0 0 ${width} ${SERIES.length * rowHeight + 16}`,
        role: "img",
        "aria-label": `From ${first} to ${last}: ${totals.join(", ")}.`,
      },
      rows,
      svg("text", { class: "axis-label start", x: label, y: SERIES.length * rowHeight + 12 }, first),
      svg("text", { class: "axis-label end", x: width, y: SERIES.length * rowHeight + 12 }, last),
    ),
    numbers(
      "Per day",
      ["Day", ...SERIES.map(([, title]) => title)],
      days.map((d) => [d.day, ...SERIES.map(([name]) => d[name])]),
    ),
  );
}

/** Each session start's injected block as a bar against its harness's cap (the line); cut ones marked. */
export function startsChart(starts) {
  const width = narrow() ? 380 : 560;
  const height = 150;
  const bottom = height - 20;
  const most = Math.max(1, ...starts.map((s) => Math.max(s.chars, s.cap_chars)));
  const slot = width / Math.max(1, starts.length);
  const y = (chars) => bottom - ((bottom - 10) * chars) / most;
  const cut = starts.filter((s) => s.truncated).length;
  const marks = starts.map((s, i) => {
    const x = i * slot + slot * 0.15;
    const w = Math.max(2, slot * 0.7);
    const tip = `${s.session_key} (${s.source || "start"}): ${s.chars} of ${s.cap_chars} characters${s.truncated ? ", cut" : ""}`;
    return svg(
      "g",
      { class: `start${s.truncated ? " truncated" : ""}`, "data-chars": s.chars, "data-cap": s.cap_chars, "data-truncated": s.truncated },
      svg("rect", { class: "bar", x, y: y(s.chars), width: w, height: bottom - y(s.chars) }, svg("title", {}, tip)),
      svg("line", { class: "cap", x1: x - 2, x2: x + w + 2, y1: y(s.cap_chars), y2: y(s.cap_chars) }),
      s.truncated ? svg("text", { class: "cut-label", x: x + w / 2, y: y(s.chars) - 4 }, "cut") : null,
    );
  });
  return h(
    "figure",
    { class: "chart", id: "starts-chart" },
    svg(
      "svg",
      {
        viewBox: `0 0 ${width} ${height}`,
        role: "img",
        "aria-label": `${starts.length} session starts; ${cut} cut to the harness's cap.`,
      },
      svg("line", { class: "axis", x1: 0, x2: width, y1: bottom, y2: bottom }),
      marks,
    ),
    h(
      "figcaption",
      { class: "legend" },
      h("span", { class: "key injected" }, "Injected characters"),
      h("span", { class: "key cap" }, "The harness's cap"),
      h("span", { class: "key truncated" }, "Cut"),
    ),
    numbers(
      "Session starts, oldest first",
      ["Session", "Start", "Characters", "Cap", "Cut"],
      starts.map((s) => [s.session_key, s.source || "?", s.chars, s.cap_chars, s.truncated ? "yes" : "no"]),
    ),
  );
}

/** Compactions per session (newest sessions, oldest first) as horizontal bars. */
export function compactionsChart(sessions) {
  const width = narrow() ? 380 : 560;
  const row = 24;
  const label = narrow() ? 150 : 200;
  const chars = narrow() ? 18 : 26;
  const most = Math.max(1, ...sessions.map((s) => s.compactions));
  const bars = sessions.map((s, i) =>
    svg(
      "g",
      { class: "session-compactions", "data-session": s.session_key, "data-value": s.compactions },
      svg(
        "text",
        { class: "row-label", x: 0, y: i * row + 15 },
        s.session_key.length > chars ? `${s.session_key.slice(0, chars - 1)}…` : s.session_key,
      ),
      svg(
        "rect",
        { class: "bar compactions", x: label, y: i * row + 4, width: ((width - label - 40) * s.compactions) / most, height: row - 8 },
        svg("title", {}, `${s.session_key}: ${s.compactions} compactions in ${s.prompts} prompts`),
      ),
      svg("text", { class: "value-label", x: label + ((width - label - 40) * s.compactions) / most + 6, y: i * row + 15 }, s.compactions),
    ),
  );
  const total = sessions.reduce((sum, s) => sum + s.compactions, 0);
  return h(
    "figure",
    { class: "chart", id: "compactions-chart" },
    svg(
      "svg",
      {
        viewBox: `0 0 ${width} ${Math.max(1, sessions.length) * row}`,
        role: "img",
        "aria-label": `${total} compactions across ${sessions.length} sessions.`,
      },
      bars,
    ),
    numbers(
      "Compactions per session",
      ["Session", "Prompts", "Compactions"],
      sessions.map((s) => [s.session_key, s.prompts, s.compactions]),
    ),
  );
}
