import { language, t } from "./i18n.js";
// Latchkey's HTTP API from the page: same-origin requests with the session in the server's HttpOnly
// cookie (this script never stores a token), errors carried as the server wrote them. Paths are
// relative ("api/login/options"), so the page also works where an application mounts Latchkey under a
// prefix (/auth/ → /auth/api/…). The one token the page ever holds is a recovery's restricted session
// (recovery.js keeps it in memory): given as `token`, it goes out as a bearer token and no cookie is sent.

// `message` is the page's own sentence for the error's code in the person's language (catalogue key
// `error.<code>`), or the server's English message where the page has none. In English the server's
// message is kept: it is English already and often says more (which field, which limit). `apiMessage` is
// always the server's (API messages stay English, for developers).
export class ApiError extends Error {
  constructor(status, code, message) {
    const key = `error.${code}`;
    const sentence = t(key);
    super(sentence === key || (language === "en" && message) ? message : sentence);
    this.status = status; this.code = code; this.apiMessage = message;
  }
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
    throw new ApiError(0, "network", t("api.the-server-could-not-be"));
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) {
    throw new ApiError(response.status, data?.error?.code ?? "http_" + response.status, data?.error?.message ?? t("api.the-server-answered-status", { status: response.status }));
  }
  return data;
}
