// Health (admin scope): the checkpoint queue and its DLQ, the admin's own agent's requests and
// 4xx/5xx answers per minute and last hook received per harness and event, the pruner's progress.
import { get } from "../api.js";
import { ago, failure, h, loading, show, when } from "../dom.js";

export async function healthPage(root) {
  loading(root, "the service's health");
  let data;
  try {
    data = await get("/api/admin/health");
  } catch (error) {
    show(root, h("h1", {}, "Health"), failure(error));
    return;
  }
  const dlq = data.dead_letter_queue;
  const peak = Math.max(1, ...data.requests_per_minute.map((m) => m.requests));
  show(
    root,
    h("h1", {}, "Health"),
    h("p", { class: "hint" }, `Checked ${when(data.checked_at)}.`),
    h(
      "div",
      { class: "columns" },
      h(
        "section",
        { class: "card", id: "queues", "aria-labelledby": "queues-h" },
        h("h2", { id: "queues-h" }, "Checkpoint queue"),
        depth("Queue", data.checkpoint_queue),
        depth("Dead-letter queue", dlq),
        dlq.visible > 0
          ? h(
              "p",
              { class: "flag truncated", role: "alert" },
              `${dlq.visible} checkpoint request(s) failed five times: make redrive sends them back.`,
            )
          : h("p", { class: "flag whole" }, "No failed checkpoint requests."),
      ),
      h(
        "section",
        { class: "card", id: "pruner", "aria-labelledby": "pruner-h" },
        h("h2", { id: "pruner-h" }, "Pruner"),
        data.pruner.pruned_before
          ? h("p", {}, `Everything that expired before ${when(data.pruner.pruned_before)} is deleted (${ago(data.pruner.pruned_before)}).`)
          : h("p", {}, "The pruner has not run yet (it runs every hour)."),
        data.pruner.running_until ? h("p", { class: "hint" }, `A run holds the lease until ${when(data.pruner.running_until)}.`) : null,
      ),
    ),
    h(
      "section",
      { class: "card", id: "rate", "aria-labelledby": "rate-h" },
      h("h2", { id: "rate-h" }, "Requests per minute (this agent's tokens, last 15 minutes)"),
      h(
        "table",
        { class: "rows minutes" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Minute", "Requests", "4xx", "5xx", ""].map((c) => h("th", { scope: "col" }, c)),
          ),
        ),
        h(
          "tbody",
          {},
          data.requests_per_minute.map((m) =>
            h(
              "tr",
              { "data-minute": m.minute },
              h("td", { "data-label": "Minute" }, new Date(m.minute).toLocaleTimeString()),
              h("td", { "data-label": "Requests", class: "num" }, m.requests),
              h("td", { "data-label": "4xx", class: "num" }, m.client_errors),
              h("td", { "data-label": "5xx", class: `num${m.server_errors ? " alarm" : ""}` }, m.server_errors),
              h("td", { "aria-hidden": "true" }, bar(m.requests / peak)),
            ),
          ),
        ),
      ),
    ),
    lastHooks(data.last_hooks),
    h(
      "section",
      { class: "card", "aria-labelledby": "missing-h" },
      h("h2", { id: "missing-h" }, "Not shown here"),
      h(
        "ul",
        {},
        data.not_shown.map((t) => h("li", {}, t)),
      ),
    ),
  );
}

function lastHooks(hooks) {
  const section = (...body) =>
    h("section", { class: "card", id: "hooks", "aria-labelledby": "hooks-h" }, h("h2", { id: "hooks-h" }, "Last hook received"), ...body);
  if (!hooks.length) return section(h("p", { class: "state" }, "No hook received lately."));
  return section(
    h(
      "table",
      { class: "rows" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Harness", "Event", "Last received"].map((c) => h("th", { scope: "col" }, c)),
        ),
      ),
      h(
        "tbody",
        {},
        hooks.map((k) =>
          h(
            "tr",
            { "data-hook": `${k.harness} ${k.event}` },
            h("td", { "data-label": "Harness" }, k.harness),
            h("td", { "data-label": "Event" }, k.event),
            h("td", { "data-label": "Last received", title: when(k.at) }, ago(k.at)),
          ),
        ),
      ),
    ),
    h("p", { class: "hint" }, "To the minute within the last 15 minutes, to the hour before."),
  );
}

// Through the CSSOM: the CSP forbids style attributes.
function bar(share) {
  const fill = h("span", { class: "bar-fill" });
  fill.style.width = `${Math.round(100 * share)}%`;
  return fill;
}

function depth(label, q) {
  return h(
    "p",
    { "data-queue": label },
    h("strong", {}, `${label}: `),
    `${q.visible} waiting, ${q.in_flight} in flight, ${q.delayed} delayed (debounce)`,
  );
}
