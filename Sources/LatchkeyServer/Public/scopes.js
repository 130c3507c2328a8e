// What each OpenID Connect scope lets an app learn or do, in the person's words: the one place the
// consent screen (oidc.js), "Apps with access" (app-list.js) and Recent activity (activity.js) take them
// from, so the three always say the same thing. `label` stands alone (a list item, a badge); `detail`
// adds what the consent screen says more; `phrase` goes inside a sentence ("Allowed Grafana to know …").

const scopes = {
  openid: { label: "Who you are on Latchkey", detail: "an id that stays the same", phrase: "who you are" },
  profile: { label: "Your name and username", phrase: "your name and username" },
  email: { label: "Your email address", phrase: "your email address" },
  groups: { label: "The groups you are in", phrase: "the groups you are in" },
  offline_access: { label: "Keeping you signed in while you are away", phrase: "that you stay signed in" },
};

// The scope's words on their own (with `detailed`, and the scope has more to say, in parentheses after);
// a scope this page does not know is shown as its name.
export function scopeLabel(scope, { detailed = false } = {}) {
  const known = Object.hasOwn(scopes, scope) ? scopes[scope] : null;
  if (!known) return scope;
  return detailed && known.detail ? `${known.label} (${known.detail})` : known.label;
}

// The scope's words inside a sentence, or null for a scope this page does not know.
export function scopePhrase(scope) {
  return Object.hasOwn(scopes, scope) ? scopes[scope].phrase : null;
}
