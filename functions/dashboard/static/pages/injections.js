// The injection inspector: the exact block each start of a session (and each sub-agent start under
// it) was given, with its sections, size against the harness's cap, and whether anything was cut;
// and a preview of what a session starting now in a project would get.
import { get, key } from "../api.js";
import { empty, failure, h, loading, routeForm, show, text, when } from "../dom.js";

const EVENTS = { session_start: "Session start", subagent_start: "Sub-agent start" };

export async function injectionsPage(root, [sessionKey]) {
  loading(root, "the injections");
  let data;
  try {
    data = await get(`/api/sessions/${key(sessionKey)}/injections`);
  } catch (error) {
    show(root, h("h1", {}, "Injections"), failure(error));
    return;
  }
  show(
    root,
    h("h1", {}, "Injections of ", h("code", {}, sessionKey)),
    h(
      "p",
      { class: "meta" },
      h("a", { href: `#/session/${key(sessionKey)}` }, "← the session"),
      " · ",
      h("a", { href: `#/lineage/${key(sessionKey)}` }, "lineage"),
    ),
    injectionList(data.injections, true),
  );
}

// Newest first; ``open``: the blocks shown unfolded (the inspector's own view).
export function injectionList(injections, open = false) {
  if (!injections.length) return empty("No injection stored: this session's start came before the inspector, or has expired.");
  return h(
    "ol",
    { class: "injections", id: "injections" },
    injections.map((r) => h("li", {}, injectionCard(r, open))),
  );
}

export function injectionCard(r, open = false) {
  const title = `${EVENTS[r.event] || r.event}${r.source ? ` (${r.source})` : ""}${r.subagent_id ? ` · sub-agent ${r.subagent_id}` : ""}`;
  return h(
    "article",
    { class: `injection${r.truncated ? " truncated" : ""}`, "data-event": r.event, "aria-label": title },
    h("h3", {}, title, h("time", { datetime: r.at }, ` · ${when(r.at)}`)),
    sizeLine(r),
    links(r),
    sections(r.sections),
    r.text === null || r.text === undefined
      ? empty("Nothing was injected.")
      : h(
          "details",
          { open },
          h("summary", {}, `The block (${r.chars.toLocaleString()} characters)`),
          h("pre", { class: "block-text" }, text(r.text)),
        ),
  );
}

function sizeLine(r) {
  const share = r.cap_chars ? Math.round((100 * r.chars) / r.cap_chars) : 0;
  return h(
    "p",
    { class: "size" },
    `${r.chars.toLocaleString()} of ${r.cap_chars.toLocaleString()} characters (the harness's cap, ${share}%) `,
    r.truncated
      ? h("span", { class: "flag truncated", role: "note" }, "truncated: something was cut to fit")
      : h("span", { class: "flag whole" }, "nothing cut"),
  );
}

function sections(list) {
  if (!list?.length) return null;
  return h(
    "ul",
    { class: "sections" },
    list.map((s) =>
      h(
        "li",
        { "data-section": s.name },
        h("span", { class: "badge" }, s.name),
        ` ${s.chars.toLocaleString()} chars`,
        s.truncated ? h("span", { class: "flag truncated" }, " cut") : null,
      ),
    ),
  );
}

function links(r) {
  const items = [];
  if (r.recovered_session_key) {
    const own = r.recovered_session_key === r.session_key;
    items.push(
      h(
        "li",
        {},
        own
          ? "Recovered this session's own checkpoint"
          : ["Recovered ", h("a", { href: `#/session/${key(r.recovered_session_key)}` }, r.recovered_session_key)],
        ` — ${(r.recovery_source || "").replace("_", " ")}`,
      ),
    );
  }
  if (r.parent_session_key) {
    items.push(
      h(
        "li",
        {},
        "Inherited from parent ",
        h("a", { href: `#/session/${key(r.parent_session_key)}` }, r.parent_session_key),
        ` — found by ${r.parent_found_by}`,
      ),
    );
  }
  return items.length ? h("ul", { class: "links" }, items) : null;
}

export async function previewPage(root, _args, params) {
  const project = params.get("project") || sessionStorage.getItem("continuity.project") || "";
  const cap = params.get("cap") || "";
  const out = h("div", { id: "preview", "aria-live": "polite" });
  const form = routeForm(
    "preview",
    h(
      "label",
      { class: "field" },
      "Project",
      h("input", { name: "project", value: project, placeholder: "/work/app", required: true, size: 30 }),
    ),
    h(
      "label",
      { class: "field" },
      "Harness cap (chars)",
      h("input", { name: "cap", value: cap, type: "number", min: 200, max: 100000, placeholder: "9000" }),
    ),
    h("button", { type: "submit" }, "Preview"),
  );
  show(
    root,
    h("h1", {}, "Preview"),
    h("p", { class: "hint" }, "What a session starting now in this project would be given (nothing is written)."),
    form,
    out,
  );
  if (!project) return;
  show(out, h("p", { class: "state", role: "status" }, "Loading the preview…"));
  try {
    const p = await get("/api/preview", { project, injection_cap_chars: cap });
    const record = {
      event: "session_start",
      source: "startup",
      at: new Date().toISOString(),
      session_key: "",
      text: p.text,
      chars: p.chars,
      cap_chars: p.cap_chars,
      truncated: p.truncated,
      sections: p.sections,
      recovered_session_key: p.session_key,
      recovery_source: p.source,
    };
    show(out, injectionCard(record, true));
  } catch (error) {
    show(out, failure(error));
  }
}
