"""Issue 30, item 3 in two real Chromium browsers, each with its own virtual authenticator, as two devices:
the new one chooses "Sign in on a new device", shows its code and waits; the signed-in one types the code
under "Approve a new device", sees which browser asked, from where and when, and approves with a fresh
passkey assertion; the new device then adds its own passkey with the restricted session and signs in with
it, while the first stays signed in. A denial ends the request on the new device. axe-core on every step
at phone and desktop width, light and dark, with screenshots."""
import pytest
from selenium.webdriver.common.by import By

from conftest import (accessible,
    full_page_screenshot, emulate, register, text_in, virtual_authenticator, visible, wait,
)

LAYOUTS = [(360, "light"), (360, "dark"), (1440, "light"), (1440, "dark")]


def status_of(driver, path):
    """The status of a same-origin GET from the page, with whatever cookie the browser holds."""
    return driver.execute_async_script(
        "const done = arguments[1]; fetch(arguments[0]).then(r => done(r.status), e => done(String(e)));", path)


def account_id(driver):
    return driver.execute_async_script(
        "const done = arguments[0]; fetch('api/account').then(r => r.json()).then(a => done(a.id), e => done(String(e)));")


def focused(driver):
    return driver.execute_script("return document.activeElement && document.activeElement.id")




def ask_for_a_code(driver, server, username=None):
    """On the new device: the welcome view's "Sign in on a new device", then (with `username`, the optional
    field naming the account) "Show a code". The code."""
    driver.get(server.url + "/")
    visible(driver, "welcome")
    start = driver.find_element(By.ID, "new-device-start")
    assert start.text == "Sign in on a new device"
    start.click()
    visible(driver, "new-device-request")
    assert focused(driver) == "new-device-title"
    if username:
        driver.find_element(By.ID, "new-device-username").send_keys(username)
    driver.find_element(By.ID, "new-device-request").click()
    code = visible(driver, "new-device-code").text
    assert len(code) == 9 and code[4] == "-", code
    assert focused(driver) == "new-device-code-title"
    assert driver.find_element(By.ID, "new-device-state").get_attribute("data-state") == "pending"
    text_in(driver, "status", f"Your code is {code}.")
    return code


def find_request(driver, code):
    """On the signed-in device: "Approve a new device" with `code`; waits for the request's details."""
    field = driver.find_element(By.ID, "approve-code")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", field)
    field.clear()
    field.send_keys(code.lower().replace("-", ""))  # the server forgives case and the dash
    driver.find_element(By.ID, "approve-find").click()
    visible(driver, "approve-request")
    wait(driver).until(lambda d: focused(d) == "approve-request-title")


def test_a_signed_in_device_lets_a_new_one_in_and_it_signs_in_with_its_own_passkey(server, browser, other_browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada Lovelace")
    account = account_id(browser)

    virtual_authenticator(other_browser)
    code = ask_for_a_code(other_browser, server)
    # The secret is in the module's memory only: nothing stored, no cookie.
    assert other_browser.execute_script("return JSON.stringify(localStorage) + JSON.stringify(sessionStorage)") == "{}{}"
    assert other_browser.execute_script("return document.cookie") == ""

    # The signed-in device sees who asked before it approves.
    find_request(browser, code)
    user_agent = other_browser.execute_script("return navigator.userAgent")
    assert browser.find_element(By.ID, "approve-agent").text == user_agent
    assert browser.find_element(By.ID, "approve-device").text.startswith("Chrome")
    assert browser.find_element(By.ID, "approve-address").text == "127.0.0.1"
    assert browser.find_element(By.ID, "approve-time").get_attribute("datetime").endswith("Z")
    browser.find_element(By.ID, "approve-confirm").click()
    text_in(browser, "status", "Approved.")
    assert not browser.find_element(By.ID, "approve-request").is_displayed()
    wait(browser).until(lambda d: any("A new device was let in" in line for line in d.execute_script(
        "return [...document.querySelectorAll('#activity > li .activity-what')].map((e) => e.textContent);")))

    # The new device's poll sees the approval: it adds its own passkey with the restricted session.
    title = visible(other_browser, "new-device-add-title")
    assert title.text == "Add a passkey for Ada Lovelace on this device"
    assert focused(other_browser) == "new-device-add-title"
    assert other_browser.execute_script("return document.cookie") == ""
    assert other_browser.get_credentials() == []
    other_browser.find_element(By.ID, "new-device-add-passkey").click()
    visible(other_browser, "new-device-done-title")
    assert focused(other_browser) == "new-device-done-title"
    assert len(other_browser.get_credentials()) == 1
    other_browser.find_element(By.ID, "new-device-login").click()
    visible(other_browser, "account")
    text_in(other_browser, "status", "Signed in as Ada Lovelace.")
    assert account_id(other_browser) == account
    wait(other_browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#passkeys > li")) == 2)

    # The first device stays signed in.
    assert status_of(browser, "api/account") == 200

    # The same code again finds nothing: the request is settled.
    find_field = browser.find_element(By.ID, "approve-code")
    find_field.send_keys(code)
    browser.find_element(By.ID, "approve-find").click()
    text_in(browser, "error", "There is no pending sign-in request with this code")
    assert not browser.find_element(By.ID, "approve-request").is_displayed()


def test_a_denied_request_ends_on_the_new_device(server, browser, other_browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Grace Hopper")

    virtual_authenticator(other_browser)
    code = ask_for_a_code(other_browser, server)
    find_request(browser, code)
    browser.find_element(By.ID, "approve-deny").click()
    text_in(browser, "status", "Denied.")

    visible(other_browser, "new-device-ended-title")
    assert other_browser.find_element(By.ID, "new-device-ended-title").text == "The request was denied"
    assert focused(other_browser) == "new-device-ended-title"
    text_in(other_browser, "error", "The request was denied.")
    assert other_browser.get_credentials() == []
    assert status_of(other_browser, "api/account") == 401

    # A new code, then cancelled on the new device itself.
    other_browser.find_element(By.ID, "new-device-retry").click()
    new_code = visible(other_browser, "new-device-code").text
    assert new_code != code
    other_browser.find_element(By.ID, "new-device-cancel").click()
    visible(other_browser, "new-device-ended-title")
    assert other_browser.find_element(By.ID, "new-device-ended-title").text == "You cancelled the request"

    # A mistyped code on the signed-in device: the server's sentence, and the field keeps the focus.
    field = browser.find_element(By.ID, "approve-code")
    field.clear()
    field.send_keys("nonsense")
    browser.find_element(By.ID, "approve-find").click()
    text_in(browser, "error", "no pending sign-in request")
    assert focused(browser) == "approve-code"


@pytest.mark.parametrize("width,scheme", LAYOUTS, ids=[f"{w}-{s}" for w, s in LAYOUTS])
def test_device_approval_views_are_accessible(server, browser, other_browser, width, scheme):
    for driver in (browser, other_browser):
        emulate(driver, width, scheme)
        virtual_authenticator(driver)
    browser.get(server.url + "/")
    register(browser, "Ada Lovelace")

    other_browser.get(server.url + "/")
    visible(other_browser, "new-device-start").click()
    visible(other_browser, "new-device-request")
    accessible(other_browser, "new-device view (start)")
    full_page_screenshot(other_browser, f"new-device-start-{width}-{scheme}")
    other_browser.find_element(By.ID, "new-device-request").click()
    code = visible(other_browser, "new-device-code").text
    accessible(other_browser, "new-device view (the code)")
    full_page_screenshot(other_browser, f"new-device-code-{width}-{scheme}")

    find_request(browser, code)
    accessible(browser, "account view (approve a new device)")
    full_page_screenshot(browser, f"approve-device-{width}-{scheme}")
    browser.find_element(By.ID, "approve-confirm").click()
    text_in(browser, "status", "Approved.")

    visible(other_browser, "new-device-add-title")
    accessible(other_browser, "new-device view (add a passkey)")
    full_page_screenshot(other_browser, f"new-device-add-{width}-{scheme}")
    other_browser.find_element(By.ID, "new-device-add-passkey").click()
    visible(other_browser, "new-device-done-title")
    accessible(other_browser, "new-device view (done)")
    full_page_screenshot(other_browser, f"new-device-done-{width}-{scheme}")
