"""Languages and branding (issue 48, docs/languages-and-branding.md): no word left outside the catalogues,
the pseudo-locale current, the page in German, Arabic (right to left) and the pseudo-locale — each view
axe-clean with the right lang and dir, screenshots in .build/browser-screenshots/i18n-*, nothing
overflowing its box at 360 px in the pseudo-locale — and the language chosen by Accept-Language, then by
the picker (remembered)."""
import json
import os
import re
import subprocess
import urllib.request
from html.parser import HTMLParser

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import ROOT, axe_violations, emulate, full_page_screenshot, register, virtual_authenticator, visible, wait
from mail_sink import MailSink, body_text  # Tests/Support, on the path through conftest
from test_admin_console import setup_link
from test_oidc_page import add_client, authorize_url, oidc_state

PUBLIC = ROOT / "Sources" / "LatchkeyServer" / "Public"
ENGLISH = json.loads((PUBLIC / "locales" / "en.json").read_text())
PAGE_SCRIPTS = ["app.js", "ui.js", "activity.js", "api.js", "app-list.js", "device-approval.js", "email.js", "forward-auth.js",
                "invitation.js", "oidc.js", "passkey-list.js", "recovery.js", "restricted-passkey.js", "scopes.js", "webauthn.js", "i18n.js",
                "admin.js", "admin-views.js"]


class Texts(HTMLParser):
    """Every non-blank text of an HTML file with the data-i18n key of the element that holds it (None:
    none does), and every data-i18n element's text with its child elements as {0}, {1}…"""
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.loose, self.messages = [], [], {}

    def handle_starttag(self, tag, attrs):
        if self.stack:
            self.stack[-1]["parts"].append(None)
        if tag not in self.VOID:
            self.stack.append({"tag": tag, "attrs": dict(attrs), "parts": []})

    def handle_startendtag(self, tag, attrs):
        if self.stack:
            self.stack[-1]["parts"].append(None)

    def handle_data(self, data):
        if not self.stack or not data.strip():
            if self.stack:
                self.stack[-1]["parts"].append(data)
            return
        top = self.stack[-1]
        top["parts"].append(data)
        if top["tag"] in ("script", "style") or "brand-name" in (top["attrs"].get("class") or "").split():
            return
        if "data-i18n" not in top["attrs"]:
            self.loose.append(data.strip())

    def handle_endtag(self, tag):
        if not self.stack or tag in self.VOID:
            return
        node = self.stack.pop()
        key = node["attrs"].get("data-i18n")
        if key:
            index = iter(range(1000))
            text = "".join(f"{{{next(index)}}}" if part is None else part for part in node["parts"])
            self.messages[key] = re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("page", ["index.html", "admin.html"])
def test_no_word_left_outside_the_catalogue_in_the_html(page):
    texts = Texts()
    texts.feed((PUBLIC / page).read_text())
    assert texts.loose == [], f"{page} has words no data-i18n element holds: {texts.loose}"
    for key, text in texts.messages.items():
        assert key in ENGLISH, f"{page}'s data-i18n {key} is not in en.json"
        assert ENGLISH[key].replace("{brand}", "Latchkey") == text, f"{page}'s {key} differs from en.json: {text!r}"


# Capitalised single words in the scripts that are names for code, not words for people.
CLASS_LISTS = {"row hint"}
NOT_WORDS = {"Bearer", "Tab", "Escape", "Enter", "Accept", "Latchkey"}


def literals(source):
    """The string literals of a script that read as words to a person: two words in a row, or a capital
    and a full stop, outside comments, console lines, class lists and paths."""
    found = []
    for number, line in enumerate(source.splitlines(), 1):
        code = line.split("// ")[0] if not line.lstrip().startswith("//") else ""
        if "console." in code:
            continue
        for match in re.finditer(r'"((?:[^"\\]|\\.)*)"|`((?:[^`\\]|\\.)*)`', code):
            text = re.sub(r"\$\{[^}]*\}", "X", match.group(1) if match.group(1) is not None else match.group(2))
            tokens = text.split()
            if all(re.fullmatch(r"[a-z]+(-[a-z]+)*", token) for token in tokens) and any("-" in token for token in tokens) \
                    or text in CLASS_LISTS:
                continue  # a class list
            if re.search(r"[./]\w+\(|=>|^M[\d ]|^Bearer |^[a-z-]+/|^[#.\[]", text):
                continue  # code, an SVG path, a header, a path or a CSS selector
            if re.search(r"[A-Za-z]{2,} [A-Za-z(]{2,}", text) or re.fullmatch(r"[A-Z][a-z]+[.…]", text) \
                    or (re.fullmatch(r"[A-Z][a-z]{2,}", text) and text not in NOT_WORDS):
                found.append(f"{number}: {text}")
    return found


@pytest.mark.parametrize("script", PAGE_SCRIPTS)
def test_no_word_left_outside_the_catalogue_in_the_scripts(script):
    found = literals((PUBLIC / script).read_text())
    assert found == [], f"{script} has words outside the catalogue (use t(key) and en.json): {found}"


def test_the_literal_check_can_fail():
    assert literals('say("Saved.");') != []
    assert literals('button("Rename", "button-small", rename);') != []
    assert literals('warn(`Removed ${name} for good`);') != []
    assert literals('element("li", "badge badge-prf", t("x"));') == []


def test_every_catalogue_has_only_english_keys_and_the_pseudo_locale_is_current():
    for path in (PUBLIC / "locales").glob("*.json"):
        catalogue = json.loads(path.read_text())
        extra = set(catalogue) - set(ENGLISH) - {"language.pseudo"}
        assert not extra, f"{path.name} has keys en.json lacks: {sorted(extra)}"
    subprocess.run([str(ROOT / "scripts" / "pseudo-locale"), "--check"], check=True)


def locale(server, **headers):
    request = urllib.request.Request(server.url + "/locale.json", headers=headers)
    with urllib.request.urlopen(request, timeout=10) as reply:
        return reply.headers["Content-Language"], json.load(reply)


def test_accept_language_chooses_the_language(server):
    assert locale(server, **{"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"})[0] == "de"
    assert locale(server, **{"Accept-Language": "sv, ja;q=0.3"})[0] == "ja"
    assert locale(server, **{"Accept-Language": "zh-CN"})[0] == "zh-Hans"
    assert locale(server, **{"Accept-Language": "sv"})[0] == "en"


def accessible(driver, view):
    violations = axe_violations(driver)
    assert violations == [], f"axe found WCAG 2.1 A/AA violations on the {view}:\n" + "\n".join(
        f"- {v['id']} ({v['impact']}): {v['help']}\n    " + "\n    ".join(f"{t}: {s}" for t, s in v["nodes"]) for v in violations)


def overflowing(driver):
    """Elements whose content is wider than their box (text cut off or spilling out), at this width."""
    return driver.execute_script("""
        const out = [];
        for (const e of document.querySelectorAll('body *')) {
          if (e.closest('[hidden]') || e.offsetParent === null || ['svg', 'path', 'rect', 'circle', 'option', 'select'].includes(e.localName)) continue;
          if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'auto') out.push(`${e.localName}#${e.id}.${e.className}: ${e.scrollWidth} > ${e.clientWidth}`);
        }
        if (document.documentElement.scrollWidth > window.innerWidth) out.push(`the page: ${document.documentElement.scrollWidth} > ${window.innerWidth}`);
        return out;""")


def catalogue(language):
    return json.loads((PUBLIC / "locales" / f"{language}.json").read_text())


def choose(driver, server, language):
    """Picks `language` in the page's picker (the page reloads in it) and waits for it."""
    Select(visible(driver, "language-picker")).select_by_value(language)
    wait(driver).until(lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == language)
    visible(driver, "welcome")


LANGUAGES = [("de", "ltr", "Anmelden ohne Passwort"), ("ar", "rtl", "سجّل الدخول دون كلمة مرور"), ("en-XA", "ltr", "[Šîĝñ")]


@pytest.mark.parametrize("language,direction,title", LANGUAGES, ids=[code for code, _, _ in LANGUAGES])
@pytest.mark.parametrize("server", [("--oidc", "--signup", "open")], indirect=True)
def test_the_page_in_a_language(server, browser, language, direction, title):
    emulate(browser, 360, "light")
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    visible(browser, "welcome")
    choose(browser, server, language)
    html = browser.find_element(By.TAG_NAME, "html")
    assert (html.get_attribute("lang"), html.get_attribute("dir")) == (language, direction)
    assert browser.find_element(By.ID, "welcome-title").text.startswith(title)
    assert browser.execute_script("return localStorage.getItem('latchkey.language')") == language
    accessible(browser, f"welcome view in {language}")
    full_page_screenshot(browser, f"i18n-{language}-welcome-360")
    if language == "en-XA":
        assert overflowing(browser) == [], "text overflows its box at 360 px in the pseudo-locale (welcome)"

    field = browser.find_element(By.ID, "passkey-name")
    field.send_keys("Ada Lovelace")
    browser.find_element(By.ID, "register").click()
    visible(browser, "account")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#passkeys > li")) == 1)
    assert browser.find_element(By.ID, "account-title").text == catalogue(language)["page.account-title"]
    accessible(browser, f"account view in {language}")
    full_page_screenshot(browser, f"i18n-{language}-account-360")
    if language == "en-XA":
        assert overflowing(browser) == [], "text overflows its box at 360 px in the pseudo-locale (account)"

    emulate(browser, 1280, "dark")
    browser.refresh()
    visible(browser, "account")
    accessible(browser, f"account view in {language}, wide and dark")
    full_page_screenshot(browser, f"i18n-{language}-account-1280-dark")

    # An app asks for the account: the consent screen in the language, with the app's name.
    emulate(browser, 360, "light")
    add_client(server)
    browser.get(authorize_url(server))
    oidc_state(browser, "consent")
    consent = visible(browser, "oidc-consent-title")
    assert "Team Notes" in consent.text
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("dir") == direction
    accessible(browser, f"consent screen in {language}")
    full_page_screenshot(browser, f"i18n-{language}-consent-360")
    if language == "en-XA":
        assert overflowing(browser) == [], "text overflows its box at 360 px in the pseudo-locale (consent)"

    # The console's main view (its first administrator is this account, by the setup link the server logged).
    browser.get(setup_link(server))
    visible(browser, "view-setup")
    browser.find_element(By.ID, "setup-signin").click()
    visible(browser, "view-accounts")
    html = browser.find_element(By.TAG_NAME, "html")
    assert (html.get_attribute("lang"), html.get_attribute("dir")) == (language, direction)
    assert browser.find_element(By.ID, "nav-accounts").text == catalogue(language)["console.nav-accounts"]
    browser.find_element(By.ID, "search").click()
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#account-list > li")) >= 1)
    accessible(browser, f"console in {language}")
    full_page_screenshot(browser, f"i18n-{language}-console-360")
    if language == "en-XA":
        assert overflowing(browser) == [], "text overflows its box at 360 px in the pseudo-locale (console)"


def test_the_picker_wins_over_accept_language(server, browser):
    """Chromium sends Accept-Language: ja here; the page opens in Japanese, and the picker's Dutch wins after."""
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": "ja,en;q=0.5"}})
    browser.get(server.url + "/")
    visible(browser, "welcome")
    wait(browser).until(lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ja")
    assert browser.find_element(By.ID, "login").text == "パスキーでログイン"
    choose(browser, server, "nl")
    browser.get(server.url + "/")
    visible(browser, "welcome")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "nl"
    assert browser.find_element(By.ID, "login").text == "Inloggen met een passkey"


@pytest.fixture
def smtp():
    with MailSink() as sink:
        yield sink


def test_a_mail_goes_in_the_accounts_language(smtp, browser):
    from latchkey_server import Server
    with Server("--smtp-url", smtp.url, "--smtp-from", "Latchkey <noreply@example.com>", "--recovery-email") as server:
        virtual_authenticator(browser)
        browser.get(server.url + "/")
        visible(browser, "welcome")
        choose(browser, server, "de")
        register(browser, "Ada Lovelace")
        # The page tells the server the account's language once it is signed in.
        wait(browser).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-language-told") == "de")
        card = visible(browser, "email-card")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)
        browser.find_element(By.ID, "email-address").send_keys("ada@example.com")
        browser.find_element(By.ID, "email-save").click()
        message = smtp.wait(1)[3]
        assert message["Subject"] == "Bestätigen Sie Ihre E-Mail-Adresse für Latchkey", message["Subject"]
        assert body_text(message).startswith("Hallo Ada Lovelace,"), body_text(message)


def write_logo(path):
    path.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 32" width="120" height="32">'
                    '<rect width="120" height="32" rx="6" fill="#0b6e4f"/><text x="12" y="22" font-size="16" fill="#fff">EXAMPLE</text></svg>')
    return path


def test_branding_on_the_page_and_the_consent(browser, tmp_path):
    from latchkey_server import Server, admin
    logo = write_logo(tmp_path / "logo.svg")
    flags = ("--oidc", "--signup", "open", "--brand-name", "Example Corp", "--brand-logo", str(logo), "--brand-favicon", str(logo),
             "--accent-color", "#0b6e4f", "--accent-color-dark", "#5fd3a6")
    with Server(*flags) as server:
        virtual_authenticator(browser)
        emulate(browser, 360, "light")
        browser.get(server.url + "/")
        visible(browser, "welcome")
        wait(browser).until(lambda d: d.execute_script(
            "const l = document.querySelector('.brand-logo'); return l !== null && l.complete && l.naturalWidth > 0"))
        assert browser.find_element(By.ID, "brand-name").text == "Example Corp"
        assert browser.title.startswith("Example Corp")
        assert "Example Corp" in browser.find_element(By.ID, "login-title").text
        assert browser.execute_script("return getComputedStyle(document.getElementById('login')).backgroundColor") == "rgb(11, 110, 79)"
        assert browser.execute_script("return document.querySelector('link[rel=icon]')?.getAttribute('href')").endswith("brand/favicon")
        accessible(browser, "branded welcome view")
        full_page_screenshot(browser, "i18n-brand-welcome-360")
        register(browser, "Grace Hopper")
        add_client(server)
        # The app's own logo, as the operator gives it (issue 48 item 3): through the real CLI, read from its bytes.
        app_logo = tmp_path / "notes.svg"
        app_logo.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48" width="48" height="48">'
                            '<circle cx="24" cy="24" r="22" fill="#7a1fa2"/></svg>')
        assert "/oidc/logo/notes" in admin(server, "clients", "update", "notes", "--logo", str(app_logo)).stdout
        browser.get(authorize_url(server))
        oidc_state(browser, "consent")
        assert "Example Corp" in visible(browser, "oidc-consent-title").text
        wait(browser).until(lambda d: d.execute_script(
            "const l = document.getElementById('oidc-app-logo'); return !l.hidden && l.complete && l.naturalWidth === 48"))
        assert browser.find_element(By.ID, "oidc-app-logo").get_attribute("src").endswith("/oidc/logo/notes")
        assert browser.find_element(By.ID, "oidc-app-logo").get_attribute("alt") == ""
        accessible(browser, "branded consent")
        full_page_screenshot(browser, "i18n-brand-consent-360")
        emulate(browser, 1280, "dark")
        browser.refresh()
        oidc_state(browser, "consent")
        assert browser.execute_script("return getComputedStyle(document.getElementById('oidc-allow')).backgroundColor") == "rgb(95, 211, 166)"
        accessible(browser, "branded consent, dark")
        full_page_screenshot(browser, "i18n-brand-consent-1280-dark")


def test_a_low_contrast_accent_is_refused_at_start(tmp_path):
    binary = os.environ.get("LATCHKEY_BIN", str(ROOT / ".build" / "debug" / "latchkey"))
    result = subprocess.run([binary, "serve", "--port", "0", "--origin", "http://localhost", "--database", f"sqlite:{tmp_path}/db.sqlite",
                             "--accent-color", "#ffcc00"], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0, result
    assert "--accent-color #ffcc00 has a contrast of 1.51:1 against the light surface" in result.stderr, result.stderr
    assert "4.5:1" in result.stderr
