// Sessions by project, newest first, refreshed while the tab is visible.
import { get, key } from "../api.js";
import { activityChart, compactionsChart, startsChart } from "../charts.js";
import { ago, empty, failure, h, routeForm, show, when } from "../dom.js";

// Every 10 s while the tab is visible: 6 requests a minute per open tab, each one index query (the
// project's session notes: every session, a transcript or not) and one batch read of states. ``every`` in the route (2 s at least) changes it for this view.
export const REFRESH_MS = 10_000;
const PROJECT_KEY = "continuity.project";

export async function sessionsPage(root, _args, params, signal) {
  const project = params.get("project") || sessionStorage.getItem(PROJECT_KEY) || "";
  const filters = {
    project,
    harness: params.get("harness") || "",
    status: params.get("status") || "",
    since: params.get("since") || "",
  };
  const list = h("div", { id: "sessions", "aria-live": "polite" });
  const stamp = h("p", { class: "hint", id: "refreshed" });
  const glance = h("div", { id: "glance" });
  show(root, h("h1", {}, "Sessions"), filterForm(filters), glance, stamp, list);
  if (!project) {
    show(list, empty("Pick a project on the Projects page, or enter its path (the directory the agent works in)."));
    return;
  }
  sessionStorage.setItem(PROJECT_KEY, project);
  // The pictures: one request, once a visit (the table below refreshes on its own).
  get("/api/projects/activity", { project, days: params.get("days") || 14 })
    .then((activity) => {
      if (!signal.aborted) show(glance, pictures(activity));
    })
    .catch((error) => {
      if (!signal.aborted) show(glance, failure(error));
    });
  show(list, h("p", { class: "state", role: "status" }, "Loading sessions…"));
  const every = Math.max(2000, Number(params.get("every")) * 1000 || REFRESH_MS);
  let loading = false;
  const refresh = async () => {
    loading = true;
    try {
      const page = await get("/api/sessions/overview", {
        project,
        harness: filters.harness,
        status: filters.status,
        since: filters.since ? new Date(filters.since).toISOString() : "",
        limit: 100,
      });
      show(
        list,
        page.sessions.length
          ? table(page.sessions)
          : empty("No sessions match: widen the filters (any status, no date), or check the project on the Projects page."),
      );
      stamp.textContent = `Updated ${new Date().toLocaleTimeString()}; refreshes every ${every / 1000} s.`;
    } catch (error) {
      show(list, failure(error));
    } finally {
      loading = false;
    }
  };
  const tick = () => {
    if (document.visibilityState === "visible" && !loading) refresh();
  };
  // Stopped when the page is left, registered before the first await: leaving while the first
  // answer is on its way stops the refresh too.
  const timer = setInterval(tick, every);
  signal.addEventListener("abort", () => clearInterval(timer), { once: true });
  await refresh();
}

function pictures(activity) {
  const card = (id, title, body, wide) =>
    h("section", { class: `card${wide ? " wide" : ""}`, "aria-labelledby": id }, h("h2", { id }, title), body);
  return h(
    "div",
    { class: "glance" },
    card("activity-h", `The last ${activity.days.length} days`, activityChart(activity.days), true),
    card(
      "starts-h",
      "Injected at each session start, against the cap",
      activity.starts.length ? startsChart(activity.starts) : empty("No session start recorded yet: the next one shows here."),
    ),
    card(
      "compactions-h",
      "Compactions per session",
      activity.sessions.length ? compactionsChart(activity.sessions) : empty("No session yet: start one in the project."),
    ),
  );
}

function filterForm(filters) {
  const field = (label, control) => h("label", { class: "field" }, label, control);
  const status = h(
    "select",
    { name: "status" },
    ["", "active", "idle", "ended", "cleared"].map((v) => h("option", { value: v, selected: v === filters.status }, v || "any")),
  );
  return routeForm(
    "sessions",
    field("Project", h("input", { name: "project", value: filters.project, placeholder: "/work/app", required: true, size: 30 })),
    field("Harness", h("input", { name: "harness", value: filters.harness, placeholder: "any", size: 12 })),
    field("Status", status),
    field("Active since", h("input", { name: "since", type: "date", value: filters.since })),
    h("button", { type: "submit" }, "Show"),
  );
}

function table(sessions) {
  const head = ["Session", "Harness", "Where", "Status", "Last activity", "Prompts", "Checkpoints", "Compactions", "Sub-agents", "Started"];
  return h(
    "table",
    { class: "rows" },
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
      sessions.map((s) =>
        h(
          "tr",
          { "data-session": s.session_key },
          h("td", { "data-label": "Session", class: "id" }, h("a", { href: `#/session/${key(s.session_key)}` }, s.session_key)),
          h("td", { "data-label": "Harness" }, s.harness || "?"),
          h("td", { "data-label": "Where", title: whereTitle(s) }, where(s)),
          h("td", { "data-label": "Status" }, h("span", { class: `status ${s.status}` }, s.status)),
          h("td", { "data-label": "Last activity", title: when(s.last_activity_at) }, ago(s.last_activity_at)),
          h("td", { "data-label": "Prompts", class: "num" }, s.prompts),
          h("td", { "data-label": "Checkpoints", class: "num" }, s.checkpoints),
          h("td", { "data-label": "Compactions", class: "num" }, s.compactions),
          h("td", { "data-label": "Sub-agents", class: "num" }, s.subagents),
          h("td", { "data-label": "Started" }, when(s.started_at)),
        ),
      ),
    ),
  );
}

// The machine and branch the session's client reported ("ana-laptop · fix/refunds"); empty for a
// client that sends neither (older ones). The person and the local path show on hover.
function where(s) {
  return [s.machine_name, s.branch].filter(Boolean).join(" · ");
}

function whereTitle(s) {
  return [s.user && `by ${s.user}`, s.project_path && `in ${s.project_path}`].filter(Boolean).join(", ");
}
