// Tokens (admin scope) of the signed-in admin's own agent: list, create (the secret is shown once),
// revoke. Another agent is a tenant of its own, created by the operator (docs/SECURITY.md).
import { del, get, post } from "../api.js";
import { empty, failure, h, loading, show, when } from "../dom.js";

export async function tokensPage(root) {
  loading(root, "the tokens");
  const list = h("div", { id: "tokens", "aria-live": "polite" });
  const created = h("div", { id: "created", "aria-live": "polite" });
  const refresh = async () => {
    try {
      const data = await get("/api/tokens");
      show(
        list,
        data.tokens.length
          ? table(data.tokens, refresh)
          : empty("No tokens yet: create one below, with the scopes it needs (hooks for a machine's client, read for the dashboard)."),
      );
    } catch (error) {
      show(list, failure(error));
    }
  };
  show(root, h("h1", {}, "Tokens"), createForm(created, refresh), created, list);
  await refresh();
}

function createForm(created, refresh) {
  const scopes = ["read", "hooks", "admin"].map((s) =>
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "scopes", value: s, checked: s === "read" }), ` ${s}`),
  );
  const submit = async (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const body = {
      name: form.get("name") || undefined,
      scopes: form.getAll("scopes"),
      expires_in_days: form.get("days") ? Number(form.get("days")) : undefined,
    };
    try {
      const made = await post("/api/tokens", body);
      show(
        created,
        h(
          "div",
          { class: "card secret", role: "status" },
          h("p", {}, h("strong", {}, "Copy this token now: it is shown once. "), `Agent ${made.agent_id}, ${made.scopes.join(", ")}.`),
          h("code", { id: "new-token" }, made.token),
        ),
      );
      event.target.reset();
      await refresh();
    } catch (error) {
      show(created, failure(error));
    }
  };
  return h(
    "form",
    { class: "filters", onsubmit: submit, "aria-label": "Create a token" },
    h("label", { class: "field" }, "Name", h("input", { name: "name", maxlength: 128, size: 16 })),
    h("fieldset", { class: "field" }, h("legend", {}, "Scopes"), scopes),
    h("label", { class: "field" }, "Expires in days", h("input", { name: "days", type: "number", min: 1, max: 3650, size: 6 })),
    h("button", { type: "submit" }, "Create"),
  );
}

function table(tokens, refresh) {
  const revoke = (t) => async (event) => {
    if (!confirm(`Revoke ${t.name || t.token_id}? Requests with it stop working.`)) return;
    event.target.disabled = true;
    try {
      await del(`/api/tokens/${encodeURIComponent(t.token_id)}`);
    } catch (error) {
      event.target.after(failure(error));
    }
    await refresh();
  };
  const head = ["Name", "Agent", "Scopes", "Created", "Expires", "State", ""];
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
      tokens.map((t) =>
        h(
          "tr",
          { "data-token": t.token_id },
          h("td", { "data-label": "Name" }, t.name || t.token_id),
          h("td", { "data-label": "Agent" }, t.agent_id),
          h("td", { "data-label": "Scopes" }, t.scopes.join(", ")),
          h("td", { "data-label": "Created" }, when(t.created_at)),
          h("td", { "data-label": "Expires" }, t.expires_at ? when(t.expires_at) : "never"),
          h(
            "td",
            { "data-label": "State" },
            t.revoked_at
              ? h("span", { class: "status ended" }, `revoked ${when(t.revoked_at)}`)
              : h("span", { class: "status active" }, "valid"),
          ),
          h(
            "td",
            {},
            t.revoked_at
              ? null
              : h("button", { type: "button", onclick: revoke(t), "aria-label": `Revoke ${t.name || t.token_id}` }, "Revoke"),
          ),
        ),
      ),
    ),
  );
}
