"""The prf extension end to end in a real Chromium (issue 32, item 3): a virtual authenticator with
CTAP2's hmac-secret (`hasPrf`) makes a passkey the page lists as able to unlock encrypted data; a login
with the server's `--prf-salt` evaluates it, the outputs come back to the page with the session (the
page says so and shows no byte of them), the same salt gives the same outputs again, and neither the
server's log nor its database holds them. A passkey from an authenticator without hmac-secret is listed
without the badge, and its login gets no outputs."""
import base64
import os
import pathlib

from selenium.webdriver.common.by import By

import pytest
from conftest import register, screenshot, text_in, virtual_authenticator, visible, wait

SALT = "bGF0Y2hrZXktYnJvd3Nlci10ZXN0LXByZi1zYWx0LTAx"  # "latchkey-browser-test-prf-salt-01"

# Test-side only, before the page's scripts: what each login's verify answered about PRF (the page
# itself keeps nothing of the outputs).
RECORD_VERIFY = """
window.__prf = [];
const original = window.fetch;
window.fetch = async (...args) => {
  const response = await original(...args);
  if (String(args[0]).includes("api/login/verify")) {
    try { window.__prf.push((await response.clone().json()).prf ?? null); } catch { window.__prf.push("unreadable"); }
  }
  return response;
};
"""


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def badges(driver, index):
    return driver.execute_script(
        "return [...document.querySelectorAll('#passkeys > li')[arguments[0]].querySelectorAll('.badge')].map((b) => b.textContent);", index)


def fetch_json(driver, path):
    return driver.execute_async_script("""
        const [path, done] = arguments;
        fetch(path).then(async (r) => done([r.status, await r.json()]), (e) => done([0, String(e)]));""", path)


def sign_out_and_in(driver):
    driver.find_element(By.ID, "logout").click()
    visible(driver, "welcome")
    text_in(driver, "status", "Signed out.")
    driver.find_element(By.ID, "login").click()
    visible(driver, "account")
    text_in(driver, "status", "Signed in as Ada.")
    wait(driver).until(lambda d: len(d.execute_script("return window.__prf")) > 0)


@pytest.mark.parametrize("server", [("--prf-salt", SALT)], indirect=True)
def test_a_passkey_with_prf_unlocks_encrypted_data_and_the_outputs_stay_with_the_page(server, browser):
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_VERIFY})
    virtual_authenticator(browser, prf=True)
    browser.get(server.url + "/")
    register(browser, "Ada")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#passkeys > li")) == 1)
    wait(browser).until(lambda d: "Can unlock encrypted data" in badges(d, 0))
    assert "Discoverable" in badges(browser, 0), badges(browser, 0)
    status, passkeys = fetch_json(browser, "api/account/passkeys")
    assert status == 200 and passkeys[0]["prfEnabled"] is True and passkeys[0]["discoverable"] is True, passkeys
    screenshot(browser, "prf-1-passkey")

    sign_out_and_in(browser)
    text_in(browser, "status", "Signed in as Ada. This passkey can unlock encrypted data.")
    screenshot(browser, "prf-2-signed-in")
    first = browser.execute_script("return window.__prf")[0]
    assert isinstance(first, dict) and len(unb64url(first["first"])) == 32 and "second" not in first, first
    # The page says the fact, never the bytes.
    assert first["first"] not in browser.page_source

    sign_out_and_in(browser)
    again = browser.execute_script("return window.__prf")[1]
    assert again == first, "the same passkey and salt give the same outputs"

    # A second passkey from an authenticator without hmac-secret: listed without the badge, and its login
    # has no outputs to hand back.
    browser.remove_virtual_authenticator()
    virtual_authenticator(browser)
    browser.find_element(By.ID, "add-passkey").click()
    text_in(browser, "status", "Added the passkey")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#passkeys > li")) == 2)
    status, passkeys = fetch_json(browser, "api/account/passkeys")
    plain = [p for p in passkeys if p["prfEnabled"] is not True]
    assert len(plain) == 1 and plain[0]["discoverable"] is True, passkeys
    row = browser.execute_script("return [...document.querySelectorAll('#passkeys > li')].findIndex((li) => li.dataset.id === arguments[0]);", plain[0]["id"])
    assert "Can unlock encrypted data" not in badges(browser, row) and "Discoverable" in badges(browser, row), badges(browser, row)
    sign_out_and_in(browser)
    assert browser.execute_script("return window.__prf")[2] is None
    assert "encrypted data" not in browser.find_element(By.ID, "status").text

    outputs = unb64url(first["first"])
    forms = [outputs, first["first"].encode(), base64.b64encode(outputs).rstrip(b"="), outputs.hex().encode()]
    log = pathlib.Path(server.directory.name, "server.log").read_bytes()
    database = server.database.removeprefix("sqlite:")
    stored = b"".join(pathlib.Path(database + s).read_bytes() for s in ("", "-wal") if os.path.exists(database + s))
    assert b"/api/login/verify" in log and b"Ada" in stored, "the right log and database"
    for form in forms:
        assert form not in log and form not in stored, "a PRF output left the page's hands"
