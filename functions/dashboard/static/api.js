// The API, from this origin: the token lives in sessionStorage (this tab only, gone when it closes).
const KEY = "continuity.token";

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: (value) => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

async function call(method, path, body) {
  const headers = { Authorization: `Bearer ${token.get() || ""}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "The service did not answer. Is it running?");
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = data.detail || data.message || `HTTP ${response.status}`;
    throw new ApiError(response.status, messageFor(response.status, detail));
  }
  return data;
}

function messageFor(status, detail) {
  if (status === 401 || status === 403)
    return `Not allowed: ${detail}. Sign in with a token that has the scope this page needs (read; admin for tokens and health).`;
  if (status === 429) return "Rate limit reached; the page tries again shortly.";
  return detail;
}

export const get = (path, params = {}) => {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== ""));
  const suffix = query.toString() ? `?${query}` : "";
  return call("GET", path + suffix);
};
export const post = (path, body) => call("POST", path, body);
export const del = (path) => call("DELETE", path);
export const key = (sessionKey) => encodeURIComponent(sessionKey);
