// Lineage: where a session came from (the session it continued after a compaction or /clear, the
// parent a sub-agent inherited from) and the sub-agents started under it; each link says how the
// service found it, and a guess is marked as one.
import { get, key } from "../api.js";
import { empty, failure, h, loading, show, when } from "../dom.js";

export async function lineagePage(root, [sessionKey]) {
  loading(root, "the lineage");
  let data;
  try {
    data = await get(`/api/sessions/${key(sessionKey)}/lineage`);
  } catch (error) {
    show(root, h("h1", {}, "Lineage"), failure(error));
    return;
  }
  show(
    root,
    h("h1", {}, "Lineage of ", h("code", {}, sessionKey)),
    h("p", { class: "meta" }, h("a", { href: `#/session/${key(sessionKey)}` }, "← the session")),
    lineageList(data),
  );
}

export function lineageList(data) {
  if (!data.links.length)
    return empty("No links: this session neither continued another nor inherited from a parent, and started no sub-agent the service saw.");
  const session = (k) => (k === data.session_key ? h("strong", {}, k) : h("a", { href: `#/session/${key(k)}` }, k));
  return h(
    "ol",
    { class: "lineage", id: "lineage" },
    data.links.map((l) =>
      h(
        "li",
        { class: `link ${l.kind}${l.guess ? " guess" : ""}`, "data-kind": l.kind },
        session(l.from_session),
        l.kind === "subagent" ? " → sub-agent " : " → continued by ",
        session(l.to_session),
        h("span", { class: "found-by" }, ` — found by ${l.found_by}`),
        l.guess ? h("span", { class: "flag guess" }, " guess") : null,
        h("time", { datetime: l.at, class: "hint" }, ` · ${when(l.at)}`),
      ),
    ),
  );
}
