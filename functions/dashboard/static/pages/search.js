// Ranked transcript search over a project's recent sessions, or one session.
import { key, post } from "../api.js";
import { empty, failure, h, routeForm, show, text, when } from "../dom.js";

export async function searchPage(root, _args, params) {
  const query = params.get("q") || "";
  const project = params.get("project") || sessionStorage.getItem("continuity.project") || "";
  const session = params.get("session") || "";
  const results = h("div", { id: "results", "aria-live": "polite" });
  const form = routeForm(
    "search",
    h("label", { class: "field" }, "Words", h("input", { name: "q", value: query, required: true, size: 30 })),
    h("label", { class: "field" }, "Project", h("input", { name: "project", value: project, placeholder: "/work/app", size: 24 })),
    h("label", { class: "field" }, "or session", h("input", { name: "session", value: session, size: 16 })),
    h("button", { type: "submit" }, "Search"),
  );
  show(root, h("h1", {}, "Search"), form, results);
  if (!query) return;
  if (!project && !session) return show(results, empty("Give a project (from the Projects page) or a session to search in."));
  show(results, h("p", { class: "state", role: "status" }, "Searching…"));
  try {
    const found = await post("/api/sessions/search", {
      query,
      project: project || undefined,
      session_key: session || undefined,
      limit: 20,
    });
    show(
      results,
      found.results.length
        ? h(
            "ol",
            { class: "hits" },
            found.results.map((r) =>
              h(
                "li",
                { class: "hit" },
                h("a", { href: `#/session/${key(r.session_key)}` }, r.session_key),
                h("span", { class: "hint" }, ` · score ${r.score.toFixed(2)} · ${when(r.updated_at)}`),
                h("pre", { class: "snippet" }, text(r.snippet)),
              ),
            ),
          )
        : empty("Nothing found: try fewer or other words, or search the whole project instead of one session."),
    );
  } catch (error) {
    show(results, failure(error));
  }
}
