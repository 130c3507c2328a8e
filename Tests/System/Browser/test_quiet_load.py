"""The page is quiet until asked: the background autofill request never shows an error, and a browser
without passkeys gets an explanation instead of buttons that cannot work."""
from selenium.webdriver.common.by import By

from conftest import (
    autofill_settled, axe_violations, full_page_screenshot, message_texts, text_in, virtual_authenticator, visible, wait,
)


def test_no_error_on_load_with_an_empty_authenticator(server, browser):
    """The issue's report: an authenticator with no passkey made the autofill request fail at once,
    and the page showed "cancelled or timed out" before the person touched anything."""
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    visible(browser, "welcome")
    state = autofill_settled(browser)
    assert state in ("ended", "waiting"), f"the autofill request never settled ({state})"
    assert message_texts(browser) == ("", ""), "nothing the person did, so nothing to report"


def test_no_error_on_load_with_a_stale_passkey(server, browser):
    """An authenticator that holds a passkey the server no longer knows (its account was deleted
    elsewhere): the virtual authenticator answers the autofill request at once, the server refuses the
    passkey, and the page stays quiet — it only asks the browser to forget the passkey."""
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    field = visible(browser, "passkey-name")
    field.send_keys("Ada")
    browser.find_element(By.ID, "register").click()
    visible(browser, "account")
    status = browser.execute_async_script(
        "const done = arguments[0]; fetch('/api/account', {method: 'DELETE'}).then(r => done(r.status), e => done(String(e)));")
    assert status == 204
    assert len(browser.get_credentials()) == 1

    browser.refresh()
    visible(browser, "welcome")
    assert autofill_settled(browser) in ("ended", "waiting")
    assert message_texts(browser) == ("", "")
    # The autofill did answer with the stale passkey (Chromium's virtual authenticator picks it at once),
    # so the page told the browser to forget it.
    wait(browser).until(lambda d: d.get_credentials() == [])


def test_a_failure_the_person_started_is_shown(server, browser):
    """Quiet is not silent: the same empty authenticator, but the person clicks Log in. (The usual dialog:
    this browser is made to say it has no immediate sign-in, whose own answer test_mediation.py checks.)"""
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
        "const capabilities = PublicKeyCredential.getClientCapabilities.bind(PublicKeyCredential);"
        "PublicKeyCredential.getClientCapabilities = async () => ({ ...(await capabilities()), immediateGet: false });")})
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    visible(browser, "welcome")
    autofill_settled(browser)
    browser.find_element(By.ID, "login").click()
    text_in(browser, "error", "cancelled or timed out")
    assert "Try again" in browser.find_element(By.ID, "error").text, "the message says what to do next"


def test_browser_without_webauthn_gets_an_explanation(server, browser):
    """No PublicKeyCredential (an old browser, or a page opened over plain http on a public name): an
    explanation, and no sign-up or log-in button that could only fail."""
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.PublicKeyCredential;"})
    browser.get(server.url + "/")
    notice = visible(browser, "unsupported")
    assert "passkeys" in notice.text.lower()
    assert not browser.find_element(By.ID, "welcome").is_displayed()
    assert not browser.find_element(By.ID, "login").is_displayed()
    assert not browser.find_element(By.ID, "register").is_displayed()
    assert message_texts(browser) == ("", "")
    assert axe_violations(browser) == []
    full_page_screenshot(browser, "unsupported-browser")


def test_browser_without_autofill_still_logs_in(server, browser):
    """No conditional mediation and no getClientCapabilities: no autofill, no error, the buttons work."""
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
        "delete PublicKeyCredential.isConditionalMediationAvailable;"
        "delete PublicKeyCredential.getClientCapabilities;")})
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    visible(browser, "welcome")
    assert autofill_settled(browser) == "unavailable"
    assert not browser.find_element(By.ID, "unsupported").is_displayed()
    field = browser.find_element(By.ID, "passkey-name")
    field.send_keys("Grace")
    browser.find_element(By.ID, "register").click()
    visible(browser, "account")
    assert browser.find_element(By.ID, "error").text == ""
