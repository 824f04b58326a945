// Building the page: every piece of stored text goes in through textContent, never as HTML.
// Transcripts are untrusted input (a prompt may hold "<script>"); nothing here parses markup.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function show(root, ...children) {
  root.replaceChildren();
  append(root, children);
}

// Redaction markers ([REDACTED:aws_key]) stand out as such; the rest stays plain text. A live
// transcript keeps each secret's length (offsets into it must hold), so its marker is padded with
// "*" to the secret's length: the pad is shown as the marker's title, not as a run of stars.
const MARKER = /\[REDACTED(?::[a-z_]{1,40})?\](\**)/g;

export function text(value) {
  const source = String(value ?? "");
  const parts = [];
  let last = 0;
  for (const found of source.matchAll(MARKER)) {
    parts.push(source.slice(last, found.index));
    const shown = found[0].slice(0, found[0].length - found[1].length);
    const title = found[1] ? `redacted at rest (${found[0].length} characters)` : "redacted at rest";
    parts.push(h("mark", { class: "redacted", title }, shown));
    last = found.index + found[0].length;
  }
  parts.push(source.slice(last));
  return parts.filter((p) => p !== "");
}

export function when(iso) {
  if (!iso) return "time unknown";
  const at = new Date(iso);
  return at.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

// To the second: the timeline's order must be visible in its times.
export function moment(iso) {
  if (!iso) return "time unknown";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

export function ago(iso) {
  const seconds = Math.max(0, (Date.now() - new Date(iso).getTime()) / 1000);
  if (seconds < 90) return `${Math.round(seconds)} s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 129600) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} d ago`;
}

export function loading(root, what) {
  show(root, h("p", { class: "state", role: "status" }, `Loading ${what}…`));
}

// Each failure says what to do next, by what went wrong.
const NEXT = {
  0: "Check that the service is running (make run) and reload.",
  401: "Sign out and sign in again with a valid token.",
  403: "Sign out and sign in with a token that has the scope this page needs.",
  404: "Check the link, or open it from the Projects page.",
  429: "Wait a moment; the page tries again.",
};

export function failure(error) {
  const next =
    NEXT[error.status] ??
    (error.status >= 500 ? "Reload in a moment; if it persists, the Health page (admin) shows the service's state." : "");
  return h(
    "p",
    { class: "state error", role: "alert" },
    error.message || String(error),
    next ? h("span", { class: "next" }, ` ${next}`) : null,
  );
}

export function empty(message) {
  return h("p", { class: "state empty" }, message);
}

// A filter form whose submit moves to `#/<page>?<its non-empty fields>`: the route holds the filters.
export function routeForm(page, ...fields) {
  const go = (event) => {
    event.preventDefault();
    const query = new URLSearchParams([...new FormData(event.target)].filter(([, v]) => v));
    location.hash = `#/${page}?${query}`;
  };
  return h("form", { class: "filters", role: "search", onsubmit: go }, ...fields);
}
