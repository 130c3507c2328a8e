"""Issue 30 in a real Chromium: the recovery page (/recover#CODE from `latchkey admin recovery issue`, or the
code typed in after "Lost your passkey?") adds a passkey with the restricted session and signs in with it,
while the old device is signed out and the code leaves the address bar at once; a refused code and a
cancelled passkey request; the account view's warning while losing one device would lock the person out
(GET /api/account's recoveryRisk); and axe-core on all of it at phone and desktop width."""
import json
import subprocess

import pytest
from selenium.webdriver.common.by import By

from conftest import (accessible,
    element_screenshot, emulate, full_page_screenshot, register, text_in, virtual_authenticator, visible, wait,
)
from processes import latchkey_binary  # Tests/System/Support, on the path through conftest

REFUSAL = "This recovery code cannot be used: it may be mistyped, expired, already used or revoked. Ask for a new one."
WARNING = "If you lose this device you will need help to get back in — add a passkey on another device."
LAYOUTS = [(360, "light"), (360, "dark"), (1440, "light"), (1440, "dark")]


def issue(server, account_id):
    """`latchkey admin recovery issue` against the test server's database, as an operator runs it."""
    result = subprocess.run(
        [latchkey_binary(), "admin", "recovery", "issue", account_id, "--origin", server.origin, "--json", "--database", server.database],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, (result.stdout, result.stderr)
    return json.loads(result.stdout)


def status_of(driver, path):
    """The status of a same-origin GET from the page, with whatever cookie the browser holds."""
    return driver.execute_async_script(
        "const done = arguments[1]; fetch(arguments[0]).then(r => done(r.status), e => done(String(e)));", path)


def account_id(driver):
    return driver.execute_async_script(
        "const done = arguments[0]; fetch('api/account').then(r => r.json()).then(a => done(a.id), e => done(String(e)));")


def passkey_count(driver):
    return len(driver.find_elements(By.CSS_SELECTOR, "#passkeys > li"))


def risk_warning(driver):
    """The account view's recovery warning: its text while shown, None while hidden."""
    element = driver.find_element(By.ID, "recovery-risk")
    return element.text if element.is_displayed() else None


def add_passkey_in_page(driver, count):
    """Presses "Add a passkey" and waits until the list holds `count` passkeys."""
    driver.find_element(By.ID, "add-passkey").click()
    text_in(driver, "status", "Added the passkey")
    wait(driver).until(lambda d: passkey_count(d) == count)




def test_recovery_link_adds_a_passkey_and_signs_in_with_it(server, browser, other_browser):
    # The old device: signed up, still signed in.
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada Lovelace")
    account = account_id(browser)
    assert status_of(browser, "api/account") == 200

    issued = issue(server, account)
    code = issued["code"]
    assert issued["link"] == f"{server.origin}/recover#{code}"

    # A new device with an empty authenticator opens the link.
    virtual_authenticator(other_browser)
    other_browser.get(issued["link"])
    title = visible(other_browser, "recover-add-title")
    assert title.text == "Add a new passkey for Ada Lovelace"
    text_in(other_browser, "status", "The code was accepted.")
    # The fragment left the address bar (and this history entry) as soon as the page read it.
    assert other_browser.current_url == f"{server.url}/recover", other_browser.current_url
    assert other_browser.execute_script("return location.hash") == ""
    assert code not in other_browser.page_source, "the code is not left in the page either"
    # The restricted session is in the module's memory only: no cookie, nothing stored.
    assert other_browser.execute_script("return document.cookie") == ""
    assert other_browser.execute_script("return JSON.stringify(localStorage) + JSON.stringify(sessionStorage)") == "{}{}"
    assert other_browser.get_credentials() == []

    other_browser.find_element(By.ID, "recover-add-passkey").click()
    visible(other_browser, "recover-done-title")
    text_in(other_browser, "status", "Every other session of your account was signed out.")
    assert len(other_browser.get_credentials()) == 1
    assert other_browser.execute_script("return document.cookie") == ""

    # Every session of the account ended: the old device is signed out. (Its passkey still works until it
    # is removed: the authenticator goes first, or the page's passkey autofill would sign straight back in.)
    assert status_of(browser, "api/account") == 401
    browser.remove_virtual_authenticator()
    browser.refresh()
    visible(browser, "welcome")

    # Sign in with the new passkey: the account view, at the page's own address.
    other_browser.find_element(By.ID, "recover-login").click()
    visible(other_browser, "account")
    text_in(other_browser, "status", "Signed in as Ada Lovelace.")
    text_in(other_browser, "status", "Remove the passkeys you lost")
    assert other_browser.current_url == f"{server.url}/"
    wait(other_browser).until(lambda d: passkey_count(d) == 2)
    assert account_id(other_browser) == account

    # The code was used up: the same link again is refused with the server's one message.
    other_browser.get(issued["link"])
    text_in(other_browser, "error", REFUSAL)
    assert visible(other_browser, "recover-form").is_displayed()
    assert other_browser.current_url == f"{server.url}/recover"


def test_typed_code_refusal_and_a_cancelled_passkey_request(server, browser, other_browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Grace Hopper")
    code = issue(server, account_id(browser))["code"]

    # "Lost your passkey?" on the welcome view leads to the code field.
    # An authenticator that cannot verify the person: its passkey request fails as a cancelled one does
    # (NotAllowedError). (One that never consents leaves the request open until it times out.)
    virtual_authenticator(other_browser, user_verified=False)
    other_browser.get(server.url + "/")
    visible(other_browser, "welcome")
    link = other_browser.find_element(By.ID, "lost-passkey")
    assert link.text == "Lost your passkey?"
    link.click()
    field = visible(other_browser, "recovery-code")
    assert other_browser.current_url == f"{server.url}/recover"
    assert "contact the service’s operator" in other_browser.find_element(By.ID, "recover").text.lower()
    assert other_browser.find_element(By.TAG_NAME, "body").get_attribute("data-autofill") == "off"

    # A mistyped code: the server's message, and the field keeps what was typed.
    field.send_keys("AAAAA-BBBBB-CCCCC-DDDDD-EEEEE\n")
    text_in(other_browser, "error", REFUSAL)
    assert field.get_attribute("value") == "AAAAA-BBBBB-CCCCC-DDDDD-EEEEE"
    assert not other_browser.find_element(By.ID, "recover-add-step").is_displayed()

    # The right one, typed in lower case and without dashes (the server forgives both).
    field.clear()
    field.send_keys(code.lower().replace("-", " "))
    other_browser.find_element(By.ID, "recover-exchange").click()
    visible(other_browser, "recover-add-title")
    assert "Grace Hopper" in other_browser.find_element(By.ID, "recover-add-title").text

    # The person cancels the passkey request: an explanation, and the button to try again.
    other_browser.find_element(By.ID, "recover-add-passkey").click()
    text_in(other_browser, "error", "cancelled")
    assert other_browser.find_element(By.ID, "recover-add-passkey").is_displayed()
    assert other_browser.get_credentials() == []

    # Trying again while the session lives works.
    other_browser.remove_virtual_authenticator()
    virtual_authenticator(other_browser)
    other_browser.find_element(By.ID, "recover-add-passkey").click()
    visible(other_browser, "recover-done-title")
    assert status_of(browser, "api/account") == 401
    other_browser.find_element(By.ID, "recover-login").click()
    visible(other_browser, "account")
    text_in(other_browser, "status", "Signed in as Grace Hopper.")


def test_the_account_view_warns_until_a_synced_passkey_is_added(server, browser):
    virtual_authenticator(browser)  # Chromium's default: device-bound passkeys (BE = BS = 0)
    browser.get(server.url + "/")
    register(browser, "Lin")
    wait(browser).until(lambda d: risk_warning(d) is not None)
    assert risk_warning(browser) == "Your account has only one passkey. " + WARNING

    # A second passkey, also bound to its device: still one lost device from needing help.
    browser.remove_virtual_authenticator()
    virtual_authenticator(browser)
    add_passkey_in_page(browser, 2)
    wait(browser).until(lambda d: (risk_warning(d) or "").startswith("None of your passkeys can be synced"))
    assert risk_warning(browser).endswith(WARNING)

    # A synced one (a password manager's, BE = BS = 1): the warning goes.
    browser.remove_virtual_authenticator()
    virtual_authenticator(browser, synced=True)
    add_passkey_in_page(browser, 3)
    wait(browser).until(lambda d: risk_warning(d) is None)
    assert "Synced passkey" in browser.find_element(By.ID, "passkeys").text

    # Removing it brings the warning back; a reload shows what the server says.
    rows = browser.find_elements(By.CSS_SELECTOR, "#passkeys > li")
    synced = next(row for row in rows if "Synced passkey" in row.text)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", synced)
    synced.find_element(By.XPATH, ".//button[text()='Remove']").click()
    synced.find_element(By.XPATH, ".//button[text()='Remove passkey']").click()
    text_in(browser, "status", "Removed the passkey")
    wait(browser).until(lambda d: risk_warning(d) is not None)
    browser.refresh()
    visible(browser, "account")
    wait(browser).until(lambda d: (risk_warning(d) or "").startswith("None of your passkeys can be synced"))


@pytest.mark.parametrize("width,scheme", LAYOUTS, ids=[f"{w}-{s}" for w, s in LAYOUTS])
def test_recovery_and_warning_views_are_accessible(server, browser, width, scheme):
    emulate(browser, width, scheme)
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada Lovelace")
    wait(browser).until(lambda d: risk_warning(d) is not None and passkey_count(d) == 1)
    accessible(browser, "account view with the recovery warning")
    full_page_screenshot(browser, f"account-warning-{width}-{scheme}")
    element_screenshot(browser.find_element(By.ID, "recovery-risk"), f"recovery-warning-{width}-{scheme}")
    code = issue(server, account_id(browser))["code"]

    browser.get(server.url + "/recover")
    field = visible(browser, "recovery-code")
    accessible(browser, "recovery view (the code)")
    full_page_screenshot(browser, f"recover-code-{width}-{scheme}")
    field.send_keys("AAAAA-BBBBB-CCCCC-DDDDD-EEEEE\n")
    text_in(browser, "error", REFUSAL)
    accessible(browser, "recovery view with a refused code")
    full_page_screenshot(browser, f"recover-refused-{width}-{scheme}")

    field.clear()
    field.send_keys(code + "\n")
    visible(browser, "recover-add-title")
    accessible(browser, "recovery view (add a passkey)")
    full_page_screenshot(browser, f"recover-add-{width}-{scheme}")

    browser.remove_virtual_authenticator()  # the new device's authenticator (the old one's passkey is excluded)
    virtual_authenticator(browser)
    browser.find_element(By.ID, "recover-add-passkey").click()
    visible(browser, "recover-done-title")
    accessible(browser, "recovery view (done)")
    full_page_screenshot(browser, f"recover-done-{width}-{scheme}")
