// The project's decision ledger in order, oldest first; decisions from sessions that ran side by side
// (a fork, a second terminal: their decisions interleave) are flagged, as they may disagree.
import { get, key } from "../api.js";
import { empty, failure, h, routeForm, show, text, when } from "../dom.js";

export async function ledgerPage(root, _args, params) {
  const project = params.get("project") || sessionStorage.getItem("continuity.project") || "";
  const out = h("div", { id: "ledger", "aria-live": "polite" });
  const form = routeForm(
    "ledger",
    h(
      "label",
      { class: "field" },
      "Project",
      h("input", { name: "project", value: project, placeholder: "/work/app", required: true, size: 30 }),
    ),
    h("button", { type: "submit" }, "Show"),
  );
  show(root, h("h1", {}, "Decision ledger"), form, out);
  if (!project) return show(out, empty("Enter a project path to see its decisions, or open a project from the Projects page."));
  show(out, h("p", { class: "state", role: "status" }, "Loading the ledger…"));
  try {
    const page = await get("/api/ledger", { project, limit: 200 });
    const entries = [...page.entries].reverse();
    show(
      out,
      entries.length
        ? [
            Object.keys(page.forks).length
              ? h(
                  "p",
                  { class: "flag fork", role: "note" },
                  `${Object.keys(page.forks).length} sessions decided side by side: their decisions are flagged as forks.`,
                )
              : null,
            h(
              "ol",
              { class: "decisions" },
              entries.map((e) => {
                const fork = page.forks[e.session_key];
                return h(
                  "li",
                  { class: `decision${fork ? " fork" : ""}`, "data-session": e.session_key },
                  h("p", {}, text(e.decision), fork ? h("span", { class: "flag fork" }, ` fork — alongside ${fork.join(", ")}`) : null),
                  e.rationale ? h("p", { class: "hint" }, "Why: ", text(e.rationale)) : null,
                  h(
                    "p",
                    { class: "hint" },
                    h("time", { datetime: e.created_at }, when(e.created_at)),
                    " · ",
                    h("a", { href: `#/session/${key(e.session_key)}` }, e.session_key),
                  ),
                );
              }),
            ),
            page.next_token ? h("p", { class: "hint" }, "Older decisions are on the next page of /api/ledger.") : null,
          ]
        : empty(
            "No decisions recorded in this project yet: they come from agent digests (the session_digest MCP tool, or continuity checkpoint).",
          ),
    );
  } catch (error) {
    show(out, failure(error));
  }
}
