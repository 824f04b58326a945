// One checkpoint: its digest, and what changed since the checkpoint before it.
import { get, key } from "../api.js";
import { empty, failure, h, loading, show, text, when } from "../dom.js";
import { factList } from "./session.js";

export async function checkpointPage(root, [sessionKey, sequence]) {
  loading(root, "the checkpoint");
  let view;
  try {
    view = await get(`/api/sessions/${key(sessionKey)}/checkpoints/${encodeURIComponent(sequence)}`);
  } catch (error) {
    show(root, h("h1", {}, `Checkpoint ${sequence}`), failure(error));
    return;
  }
  const cp = view.checkpoint;
  const link = (seq, label) => (seq ? h("a", { href: `#/checkpoint/${key(sessionKey)}/${seq}` }, label) : null);
  const diff = view.diff;
  show(
    root,
    h("h1", {}, `Checkpoint #${cp.sequence} `, h("span", { class: "badge" }, cp.trigger.replace("_", " "))),
    h(
      "p",
      { class: "meta" },
      "Session ",
      h("a", { href: `#/session/${key(sessionKey)}` }, sessionKey),
      ` · ${when(cp.created_at)} · ${coverage(cp)}`,
    ),
    h(
      "nav",
      { class: "pager", "aria-label": "Checkpoints" },
      link(view.previous_sequence, "← previous"),
      " ",
      link(view.next_sequence, "next →"),
    ),
    h(
      "section",
      { class: "card", id: "diff", "aria-labelledby": "diff-h" },
      h(
        "h2",
        { id: "diff-h" },
        view.previous_sequence ? `Since checkpoint #${view.previous_sequence}` : "First checkpoint: everything is new",
      ),
      group("Added", "added", diff.added),
      group(
        "Superseded or closed",
        "superseded",
        diff.superseded.map((c) => c.fact),
      ),
      group("Dropped (evicted by the size bound)", "dropped", diff.dropped),
      h("p", { class: "hint" }, `${diff.unchanged} unchanged.`),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "digest-h" },
      h("h2", { id: "digest-h" }, "Digest"),
      h("pre", { class: "digest" }, text(cp.digest)),
      cp.summary ? h("p", {}, h("strong", {}, "Summary: "), text(cp.summary)) : null,
      cp.next_steps.length
        ? h(
            "ul",
            {},
            cp.next_steps.map((s) => h("li", {}, text(s))),
          )
        : null,
    ),
  );
}

// Which prompts the checkpoint covers, said only with what is known: an explicit or agent
// checkpoint may carry no prompt numbers at all.
export function coverage(cp) {
  const count = `${cp.prompt_count} prompt${cp.prompt_count === 1 ? "" : "s"}`;
  if (cp.first_prompt != null && cp.last_prompt != null)
    return cp.first_prompt === cp.last_prompt ? `prompt ${cp.last_prompt}` : `prompts ${cp.first_prompt}–${cp.last_prompt}`;
  if (cp.last_prompt != null) return `${count}, up to prompt ${cp.last_prompt}`;
  return cp.prompt_count ? `${count} covered` : "no new prompts covered";
}

function group(title, name, facts) {
  return h(
    "div",
    { class: `change ${name}`, "data-change": name },
    h("h3", {}, `${title} (${facts.length})`),
    facts.length ? factList(facts) : empty("None."),
  );
}
