// The first page: every project of the token's agent, newest first, so nobody types a path.
// One request a page (GET /api/projects); "More" follows next_token.
import { get } from "../api.js";
import { ago, empty, failure, h, loading, show, when } from "../dom.js";

export async function projectsPage(root, _args, params) {
  loading(root, "the projects");
  let page;
  try {
    page = await get("/api/projects", { limit: 50, next_token: params.get("after") || "" });
  } catch (error) {
    show(root, h("h1", {}, "Projects"), failure(error), empty("Check the service is running (make run), then reload."));
    return;
  }
  const more = page.next_token
    ? h("p", {}, h("a", { href: `#/projects?after=${encodeURIComponent(page.next_token)}` }, "More projects →"))
    : null;
  show(
    root,
    h("h1", {}, "Projects"),
    page.projects.length
      ? table(page.projects)
      : empty(
          "No project yet. Install the client in a project (continuity install claude-code --scope project) and start a session there: it shows here with its first hook.",
        ),
    more,
  );
}

function table(projects) {
  // A record written before machines or hand-offs were kept has neither: "?" and 0.
  const head = ["Project", "Last activity", "Sessions", "Machines", "Harnesses", "Open hand-offs", "First seen"];
  return h(
    "table",
    { class: "rows", id: "projects" },
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
      projects.map((p) => {
        // The id (a repository's remote, a committed id, or a path); the newest session's folder on hover.
        const folder = p.project && p.project !== p.project_normalized ? `newest session's folder: ${p.project}` : null;
        return h(
          "tr",
          { "data-project": p.project_normalized },
          h(
            "td",
            { "data-label": "Project", class: "id" },
            h("a", { href: `#/sessions?project=${encodeURIComponent(p.project_normalized)}`, title: folder }, p.project_normalized),
          ),
          h("td", { "data-label": "Last activity", title: when(p.last_activity_at) }, ago(p.last_activity_at)),
          h("td", { "data-label": "Sessions", class: "num" }, p.sessions),
          h("td", { "data-label": "Machines" }, (p.machines || []).join(", ") || "?"),
          h("td", { "data-label": "Harnesses" }, p.harnesses.join(", ") || "?"),
          h("td", { "data-label": "Open hand-offs", class: "num" }, p.open_handoffs || 0),
          h("td", { "data-label": "First seen" }, when(p.first_seen)),
        );
      }),
    ),
  );
}
