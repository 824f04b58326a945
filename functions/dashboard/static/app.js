// The dashboard: plain ES modules, no build step (see the README's design notes). Routes live in
// the URL's fragment, so /dashboard is the only page the server has to know.
import { token } from "./api.js";
import { h, show } from "./dom.js";
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
const router = createRouter();

export function route() {
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const parts = (path || "/sessions").split("/").filter(Boolean).map(decodeURIComponent);
  return { page: parts[0] || "sessions", args: parts.slice(1), params: new URLSearchParams(query || "") };
}

function signIn(next) {
  nav.hidden = true;
  const input = h("input", { id: "token", type: "password", autocomplete: "off", required: true, "aria-describedby": "token-help" });
  const form = h(
    "form",
    {
      class: "card sign-in",
      onsubmit: (event) => {
        event.preventDefault();
        token.set(input.value.trim());
        next();
      },
    },
    h("h1", {}, "Sign in"),
    h("label", { for: "token" }, "API token"),
    input,
    h("p", { id: "token-help", class: "hint" }, "A token with the read scope. It is kept for this tab only."),
    h("button", { type: "submit" }, "Sign in"),
  );
  show(root, form);
  input.focus();
}

async function render() {
  if (!token.get()) {
    router.leave();
    return signIn(render);
  }
  nav.hidden = false;
  const { page, args, params } = route();
  for (const link of nav.querySelectorAll("a")) {
    link.toggleAttribute("aria-current", link.getAttribute("href") === `#/${page}`);
  }
  const pages = {
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
  const open = pages[page] || sessionsPage;
  // Each visit draws into its own view: a page left before it finished loading draws nowhere visible.
  const view = h("div", { class: "view" });
  show(root, view);
  if (await router.visit((signal) => open(view, args, params, signal))) root.focus({ preventScroll: true });
}

document.getElementById("sign-out").addEventListener("click", () => {
  token.clear();
  location.hash = "#/sessions";
  render();
});
window.addEventListener("hashchange", render);
render();
