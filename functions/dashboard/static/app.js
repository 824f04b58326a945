// The dashboard: plain ES modules, no build step (see the README's design notes). Routes live in
// the URL's fragment, so /dashboard is the only page the server has to know.
import { ApiError, get, token } from "./api.js";
import { h, show } from "./dom.js";
import { projectsPage } from "./pages/projects.js";
import { sessionsPage } from "./pages/sessions.js";
import { sessionPage } from "./pages/session.js";
import { checkpointPage } from "./pages/checkpoint.js";
import { searchPage } from "./pages/search.js";
import { injectionsPage, previewPage } from "./pages/injections.js";
import { lineagePage } from "./pages/lineage.js";
import { ledgerPage } from "./pages/ledger.js";
import { tokensPage } from "./pages/tokens.js";
import { createRouter } from "./router.js";
import { healthPage } from "./pages/health.js";

const root = document.getElementById("app");
const nav = document.getElementById("nav");
const whoLine = document.getElementById("who");
const WHO_KEY = "continuity.who";
const router = createRouter();

export function route() {
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const parts = (path || "/projects").split("/").filter(Boolean).map(decodeURIComponent);
  return { page: parts[0] || "projects", args: parts.slice(1), params: new URLSearchParams(query || "") };
}

// What each scope lets a person do here, said at sign-in and in the header.
const CAN = { read: "read sessions", admin: "manage tokens and health", hooks: "post hooks" };

export function describe(who) {
  const can = who.scopes.map((scope) => CAN[scope] || scope).join(", ");
  return `Agent ${who.agent_id} · can ${can || "nothing"}`;
}

// The token is checked (GET /api/whoami) before anything is kept: a wrong one is refused here,
// not on the first page that reads with it.
async function check(value) {
  const answer = await fetch("/api/whoami", { headers: { Authorization: `Bearer ${value}` } }).catch(() => null);
  if (!answer) throw new ApiError(0, "The service did not answer. Is it running?");
  if (answer.status === 401 || answer.status === 403)
    throw new ApiError(
      answer.status,
      "This token was refused: it is wrong, revoked or expired. Paste the token `make run` printed, or one an admin created.",
    );
  if (!answer.ok) throw new ApiError(answer.status, `The service answered HTTP ${answer.status}; try again in a moment.`);
  const who = await answer.json();
  if (!who.scopes.includes("read") && !who.scopes.includes("admin"))
    throw new ApiError(403, `This token (agent ${who.agent_id}) can only post hooks; the dashboard needs a token with the read scope.`);
  return who;
}

function signIn(next) {
  nav.hidden = true;
  whoLine.textContent = "";
  const input = h("input", { id: "token", type: "password", autocomplete: "off", required: true, "aria-describedby": "token-help" });
  const problem = h("p", { id: "sign-in-error", class: "state error", role: "alert", hidden: true });
  const button = h("button", { type: "submit" }, "Sign in");
  const form = h(
    "form",
    {
      class: "card sign-in",
      onsubmit: async (event) => {
        event.preventDefault();
        button.disabled = true;
        problem.hidden = true;
        try {
          const who = await check(input.value.trim());
          token.set(input.value.trim());
          sessionStorage.setItem(WHO_KEY, JSON.stringify(who));
          next();
        } catch (error) {
          problem.textContent = error.message;
          problem.hidden = false;
          input.select();
        } finally {
          button.disabled = false;
        }
      },
    },
    h("h1", {}, "Sign in"),
    h("label", { for: "token" }, "API token"),
    input,
    h(
      "p",
      { id: "token-help", class: "hint" },
      "A token with the read scope (admin also opens Tokens and Health). It is kept for this tab only.",
    ),
    problem,
    button,
  );
  show(root, form);
  input.focus();
}

function signedInAs() {
  try {
    return JSON.parse(sessionStorage.getItem(WHO_KEY) || "null");
  } catch {
    return null;
  }
}

async function render() {
  if (!token.get()) {
    router.leave();
    return signIn(render);
  }
  const who = signedInAs() || (await get("/api/whoami").catch(() => null));
  if (!who) {
    token.clear();
    return signIn(render);
  }
  sessionStorage.setItem(WHO_KEY, JSON.stringify(who));
  whoLine.textContent = describe(who);
  for (const link of nav.querySelectorAll("[data-scope]")) link.hidden = !who.scopes.includes(link.dataset.scope);
  nav.hidden = false;
  const { page, args, params } = route();
  for (const link of nav.querySelectorAll("a")) {
    link.toggleAttribute("aria-current", link.getAttribute("href") === `#/${page}`);
  }
  const pages = {
    projects: projectsPage,
    sessions: sessionsPage,
    session: sessionPage,
    checkpoint: checkpointPage,
    search: searchPage,
    injections: injectionsPage,
    preview: previewPage,
    lineage: lineagePage,
    ledger: ledgerPage,
    tokens: tokensPage,
    health: healthPage,
  };
  const open = pages[page] || projectsPage;
  // Each visit draws into its own view: a page left before it finished loading draws nowhere visible.
  const view = h("div", { class: "view" });
  show(root, view);
  if (await router.visit((signal) => open(view, args, params, signal))) root.focus({ preventScroll: true });
}

document.getElementById("sign-out").addEventListener("click", () => {
  token.clear();
  sessionStorage.removeItem(WHO_KEY);
  location.hash = "#/projects";
  render();
});
window.addEventListener("hashchange", render);
render();
