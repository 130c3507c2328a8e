import { t } from "./i18n.js";
// What each OpenID Connect scope lets an app learn or do, in the person's words: the one place the
// consent screen (oidc.js), "Apps with access" (app-list.js) and Recent activity (activity.js) take them
// from, so the three always say the same thing. `label` stands alone (a list item, a badge); `detail`
// adds what the consent screen says more; `phrase` goes inside a sentence ("Allowed Grafana to know …").

const scopes = {
  openid: { label: t("scopes.who-you-are-on-brand"), detail: t("scopes.an-id-that-stays-the"), phrase: t("activity.who-you-are") },
  profile: { label: t("scopes.your-name-and-username"), phrase: t("scopes.your-name-and-username-2") },
  email: { label: t("email.your-email-address"), phrase: t("scopes.your-email-address") },
  groups: { label: t("scopes.the-groups-you-are-in"), phrase: t("scopes.the-groups-you-are-in-2") },
  offline_access: { label: t("scopes.keeping-you-signed-in-while"), phrase: t("scopes.that-you-stay-signed-in") },
};

// The scope's words on their own (with `detailed`, and the scope has more to say, in parentheses after);
// a scope this page does not know is shown as its name.
export function scopeLabel(scope, { detailed = false } = {}) {
  const known = Object.hasOwn(scopes, scope) ? scopes[scope] : null;
  if (!known) return scope;
  return detailed && known.detail ? t("scopes.label-detail", { label: known.label, detail: known.detail }) : known.label;
}

// The scope's words inside a sentence, or null for a scope this page does not know.
export function scopePhrase(scope) {
  return Object.hasOwn(scopes, scope) ? scopes[scope].phrase : null;
}
