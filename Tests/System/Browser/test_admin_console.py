"""Issue 45 in a real Chromium against the real binary: the admin console at /admin. The setup link that
`latchkey serve` logs while there is no administrator makes the first one; that administrator finds an
account, disables it (the person's next request fails at once), issues a recovery code (shown once), and
reads the audit trail filtered. A change whose step-up has gone stale is refused until the passkey is
given again (and stays refused when the authenticator cannot verify the user); a non-administrator's
passkey opens no console; the console's cookie is not an ordinary session; the main task (find, disable) by
keyboard alone. axe-core on every view at 360 and 1440 px, light and dark, and screenshots of each in
.build/browser-screenshots/admin-*.png."""
import json
import re
import sqlite3
import time
import urllib.error
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from conftest import (
    axe_violations, emulate, full_page_screenshot, register, screenshot, text_in, virtual_authenticator, visible, wait,
)

LAYOUTS = [(360, "light"), (360, "dark"), (1440, "light"), (1440, "dark")]


def setup_link(server):
    """The first administrator's link, from the one line the server logged."""
    found = None
    for _ in range(50):
        found = re.search(r"(https?://[^\s\"]+/admin/setup#[A-Za-z0-9_-]{43})", server.log_text())
        if found:
            break
        time.sleep(0.1)
    assert found, "no setup link in the log:\n" + server.log_text()
    assert len(re.findall(r"/admin/setup#", server.log_text())) == 1, "one line"
    return found.group(1)


def become_first_admin(server, browser, name="Ada Admin"):
    """Signs up on the page, then opens the setup link and signs in there: the accounts view."""
    browser.get(server.url + "/")
    register(browser, name)
    link = setup_link(server)
    browser.get(link)
    visible(browser, "view-setup")
    assert "#" not in browser.current_url, "the code left the address bar"
    browser.find_element(By.ID, "setup-signin").click()
    visible(browser, "view-accounts")
    text_in(browser, "signed-in-as", name)
    return link


def status_of(driver, method, path, headers=None):
    """The status and error code of a fetch from the page, with the browser's cookies."""
    return driver.execute_async_script(
        "const done = arguments[3];"
        "fetch(arguments[1], {method: arguments[0], headers: arguments[2] || {}})"
        "  .then(async r => done([r.status, (await r.json().catch(() => null))?.error?.code ?? null]), e => done([0, String(e)]));",
        method, path, headers)


def raw(server, method, path, headers=None, body=None):
    """A request from outside any browser: (status, error code)."""
    request = urllib.request.Request(server.url + path, method=method, headers=headers or {}, data=body)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, None
    except urllib.error.HTTPError as error:
        text = error.read().decode()
        return error.code, (json.loads(text).get("error", {}).get("code") if text else None)


def result_names(driver):
    """The names in the accounts list, read in one script (the list is drawn again on every search)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#account-list button.row-title')].map((e) => e.textContent);")


def search(browser, text):
    field = browser.find_element(By.ID, "search-q")
    field.clear()
    field.send_keys(text)
    browser.find_element(By.ID, "search").click()
    wait(browser).until(lambda d: text in result_names(d) and d.find_element(By.ID, "search").get_attribute("aria-disabled") != "true")


def open_account(browser, name):
    search(browser, name)
    browser.execute_script(
        "[...document.querySelectorAll('#account-list button.row-title')].find((e) => e.textContent === arguments[0]).click();", name)
    visible(browser, "view-account")
    text_in(browser, "account-title", name)


def click(browser, element_id):
    element = browser.find_element(By.ID, element_id)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def stale_step_up(server):
    """Ages every console session's last assertion by ten minutes, in the server's own database."""
    path = server.database.removeprefix("sqlite:")
    with sqlite3.connect(path, timeout=10) as db:
        db.execute("UPDATE console_sessions SET verified_at = verified_at - 600000")


def test_the_first_admin_disables_an_account_and_issues_a_recovery_code(server, browser, other_browser):
    virtual_authenticator(browser)
    virtual_authenticator(other_browser)
    # The person the administrator will help, signed in on their own device.
    other_browser.get(server.url + "/")
    register(other_browser, "Target Person")
    assert status_of(other_browser, "GET", "/api/account")[0] == 200

    become_first_admin(server, browser)
    assert status_of(browser, "GET", "/api/admin/admins")[0] == 200
    screenshot(browser, "admin-accounts")

    open_account(browser, "Target Person")
    assert "Enabled" in browser.find_element(By.ID, "account-state").text
    full_page_screenshot(browser, "admin-account")

    # Disable: the sign-in was the fresh assertion; the person's next request fails at once.
    click(browser, "account-disable")
    text_in(browser, "status", "Disabled")
    text_in(browser, "account-state", "Disabled since")
    text_in(browser, "account-disable", "Enable")
    assert status_of(other_browser, "GET", "/api/account")[0] == 401

    # A recovery code, shown once.
    click(browser, "account-recovery")
    visible(browser, "recovery-dialog")
    code = browser.find_element(By.ID, "recovery-code").text
    assert len(code) > 10 and "/recover#" in browser.find_element(By.ID, "recovery-link").get_attribute("value")
    screenshot(browser, "admin-recovery-code")
    click(browser, "recovery-close")
    assert browser.find_element(By.ID, "recovery-code").text == "", "gone once the dialog closes"

    # A stolen cookie alone: read yes, change no (no fresh assertion, and not from the console's origin).
    cookie = browser.get_cookie("latchkey_console")
    assert cookie and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    stolen = {"Cookie": f"latchkey_console={cookie['value']}"}
    assert raw(server, "GET", "/api/admin/accounts", stolen)[0] == 200
    account_path = browser.execute_script("return document.getElementById('account-facts').querySelector('dd').textContent")
    enable = f"/api/admin/accounts/{account_path}/enable"
    assert raw(server, "POST", enable, stolen) == (403, "origin_required")
    stale_step_up(server)
    assert raw(server, "POST", enable, {**stolen, "Origin": server.origin}) == (403, "step_up_required")
    # … nor in the console while the authenticator cannot verify the person: refused, still disabled.
    browser.remove_virtual_authenticator()
    virtual_authenticator(browser, user_verified=False)
    click(browser, "account-disable")  # "Enable" now
    wait(browser).until(lambda d: d.find_element(By.ID, "error").text != "")
    assert "Disabled since" in browser.find_element(By.ID, "account-state").text
    assert status_of(other_browser, "GET", "/api/account")[0] == 401
    # The console's cookie is no ordinary session, and an ordinary session no console's.
    assert raw(server, "GET", "/api/account", {"Authorization": f"Bearer {cookie['value']}"})[0] == 401
    assert raw(server, "GET", "/api/account", {"Cookie": f"latchkey_session={cookie['value']}"})[0] == 401
    session = browser.get_cookie("latchkey_session")
    assert raw(server, "GET", "/api/admin/accounts", {"Cookie": f"latchkey_session={session['value']}"}) == (401, "admin_key_invalid")

    # The audit trail, filtered: the administrator's account is the actor.
    click(browser, "nav-audit")
    visible(browser, "view-audit")
    browser.find_element(By.CSS_SELECTOR, "#audit-event option[value='account.disabled']").click()
    click(browser, "audit-search")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#audit-list > li")) == 1)
    entry = browser.find_element(By.CSS_SELECTOR, "#audit-list > li").text
    assert "account.disabled" in entry and "admin:account:" in entry
    full_page_screenshot(browser, "admin-audit")

    # A non-administrator's passkey opens no console.
    other_browser.get(server.url + "/admin")
    visible(other_browser, "view-signin")
    other_browser.find_element(By.ID, "signin").click()
    text_in(other_browser, "error", "disabled")  # the person's account is disabled: refused before the role is asked


def test_a_non_admin_gets_403_and_the_step_up_refreshes(server, browser, other_browser):
    virtual_authenticator(browser)
    virtual_authenticator(other_browser)
    become_first_admin(server, browser)
    other_browser.get(server.url + "/")
    register(other_browser, "Plain Person")
    other_browser.get(server.url + "/admin")
    visible(other_browser, "view-signin")
    other_browser.find_element(By.ID, "signin").click()
    text_in(other_browser, "error", "not an administrator")
    assert other_browser.get_cookie("latchkey_console") is None
    assert status_of(other_browser, "GET", "/api/admin/accounts") == [401, "admin_key_invalid"]
    screenshot(other_browser, "admin-not-admin")

    # A stale step-up in the console: the change asks for the passkey again and goes through.
    open_account(browser, "Plain Person")
    stale_step_up(server)
    click(browser, "account-disable")
    text_in(browser, "status", "Disabled")
    verified = browser.execute_async_script(
        "const done = arguments[0]; fetch('/admin/api/session').then(r => r.json()).then(s => done(s.verifiedUntil));")
    assert verified, "refreshed"


@pytest.mark.parametrize("width,scheme", LAYOUTS, ids=[f"{w}-{s}" for w, s in LAYOUTS])
def test_every_console_view_is_accessible(server, browser, width, scheme):
    def accessible(view):
        violations = axe_violations(browser)
        assert violations == [], f"axe found WCAG 2.1 A/AA violations on the console's {view}:\n" + "\n".join(
            f"- {v['id']} ({v['impact']}): {v['help']}\n    " + "\n    ".join(f"{t}: {s}" for t, s in v["nodes"])
            for v in violations)

    emulate(browser, width, scheme)
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada Admin")
    browser.get(setup_link(server))
    visible(browser, "view-setup")
    accessible("setup view")
    full_page_screenshot(browser, f"admin-setup-{width}-{scheme}")
    browser.find_element(By.ID, "setup-signin").click()
    visible(browser, "view-accounts")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#account-list > li")) == 1)
    accessible("accounts view")
    full_page_screenshot(browser, f"admin-accounts-{width}-{scheme}")

    open_account(browser, "Ada Admin")
    accessible("account view")
    full_page_screenshot(browser, f"admin-account-{width}-{scheme}")
    click(browser, "account-delete")
    visible(browser, "delete-dialog")
    accessible("delete dialog")
    screenshot(browser, f"admin-delete-dialog-{width}-{scheme}")
    click(browser, "delete-cancel")

    click(browser, "nav-audit")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#audit-list > li")) > 0)
    browser.execute_script("document.getElementById('error').textContent = 'An example error message, to check its contrast.'")
    accessible("audit view")
    full_page_screenshot(browser, f"admin-audit-{width}-{scheme}")

    browser.execute_script("document.getElementById('error').textContent = ''")
    click(browser, "nav-keys")
    visible(browser, "view-keys")
    browser.find_element(By.ID, "key-name").send_keys("deploy script")
    click(browser, "key-create")
    visible(browser, "key-dialog")
    accessible("new key dialog")
    screenshot(browser, f"admin-key-created-{width}-{scheme}")
    click(browser, "key-close")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#key-list > li")) == 1)
    accessible("admin keys view")
    full_page_screenshot(browser, f"admin-keys-{width}-{scheme}")

    click(browser, "logout")
    visible(browser, "view-signin")
    accessible("sign-in view")
    full_page_screenshot(browser, f"admin-signin-{width}-{scheme}")


def test_find_and_disable_with_the_keyboard_only(server, browser, other_browser):
    """The main task without a pointer: type the name, Enter, Tab to the result, Enter, Tab to Disable, Enter."""
    from selenium.webdriver.common.keys import Keys
    virtual_authenticator(browser)
    virtual_authenticator(other_browser)
    other_browser.get(server.url + "/")
    register(other_browser, "Keyboard Target")
    become_first_admin(server, browser)
    active = lambda: browser.switch_to.active_element  # noqa: E731

    def tab_to(predicate, limit=40):
        for _ in range(limit):
            active().send_keys(Keys.TAB)
            if predicate(active()):
                return active()
        raise AssertionError("Tab never reached it; at " + (active().get_attribute("outerHTML") or "")[:200])

    browser.find_element(By.ID, "search-q").send_keys("Keyboard Target", Keys.ENTER)
    wait(browser).until(lambda d: "Keyboard Target" in result_names(d))
    tab_to(lambda e: e.text == "Keyboard Target").send_keys(Keys.ENTER)
    visible(browser, "view-account")
    text_in(browser, "account-title", "Keyboard Target")
    tab_to(lambda e: e.get_attribute("id") == "account-disable").send_keys(Keys.ENTER)
    text_in(browser, "status", "Disabled")
    assert status_of(other_browser, "GET", "/api/account")[0] == 401


def test_delete_needs_the_account_name_typed(server, browser, other_browser):
    virtual_authenticator(browser)
    virtual_authenticator(other_browser)
    other_browser.get(server.url + "/")
    register(other_browser, "Leaving Person")
    become_first_admin(server, browser)
    open_account(browser, "Leaving Person")
    click(browser, "account-delete")
    visible(browser, "delete-dialog")
    browser.find_element(By.ID, "delete-confirm").send_keys("Leaving Persen")
    browser.find_element(By.ID, "delete-go").click()
    text_in(browser, "error", "Type the account's name exactly")
    assert status_of(other_browser, "GET", "/api/account")[0] == 200, "nothing deleted"
    field = browser.find_element(By.ID, "delete-confirm")
    field.clear()
    field.send_keys("Leaving Person")
    browser.find_element(By.ID, "delete-go").click()
    text_in(browser, "status", "Deleted Leaving Person")
    assert status_of(other_browser, "GET", "/api/account")[0] == 401
    visible(browser, "view-accounts")


def test_an_admin_key_made_in_the_console_is_shown_once_works_and_is_revoked(server, browser):
    virtual_authenticator(browser)
    become_first_admin(server, browser)
    click(browser, "nav-keys")
    visible(browser, "view-keys")
    browser.find_element(By.ID, "key-name").send_keys("nightly export")
    browser.find_element(By.CSS_SELECTOR, "#key-scope option[value='read']").click()
    click(browser, "key-create")
    visible(browser, "key-dialog")
    secret = browser.find_element(By.ID, "key-secret").get_attribute("value")
    assert secret.startswith("lk_admin_")
    click(browser, "key-close")
    assert browser.find_element(By.ID, "key-secret").get_attribute("value") == "", "gone once the dialog closes"
    assert secret not in browser.page_source
    assert raw(server, "GET", "/api/admin/accounts", {"Authorization": f"Bearer {secret}"})[0] == 200
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#key-list button")) == 1)
    assert "admin:account:" in browser.find_element(By.ID, "key-list").text, "made by the administrator's account"
    browser.find_element(By.CSS_SELECTOR, "#key-list button").click()
    text_in(browser, "status", "Revoked nightly export")
    assert raw(server, "GET", "/api/admin/accounts", {"Authorization": f"Bearer {secret}"}) == (401, "admin_key_invalid")
