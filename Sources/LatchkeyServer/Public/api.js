// Latchkey's HTTP API from the page: same-origin requests with the session in the server's HttpOnly
// cookie (this script never stores a token), errors carried as the server wrote them. Paths are
// relative ("api/login/options"), so the page also works where an application mounts Latchkey under a
// prefix (/auth/ → /auth/api/…). The one token the page ever holds is a recovery's restricted session
// (recovery.js keeps it in memory): given as `token`, it goes out as a bearer token and no cookie is sent.

export class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

// `anonymous`: without the session cookie (an expired one makes every request a 401; some questions still
// deserve an answer as nobody).
export async function api(method, path, body, { token, anonymous = false } = {}) {
  const init = { method, credentials: token || anonymous ? "omit" : "same-origin", headers: {} };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "network", "The server could not be reached. Check your connection and try again.");
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) {
    throw new ApiError(response.status, data?.error?.code ?? "http_" + response.status, data?.error?.message ?? `The server answered ${response.status}.`);
  }
  return data;
}
