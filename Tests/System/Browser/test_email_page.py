"""Email for recovery (issue 30, item 4) in a real Chromium against a real SMTP server (aiosmtpd, run by the
test): the account's "Email address" card mails a confirmation link; the link, opened signed in or signed
out (then after signing in), confirms the address and leaves the address bar at once; on another device,
"Email me a recovery link" on the recovery view says the same whatever the address, and the link that
arrives adds a passkey that signs in. axe-core on the card and the recovery view at phone and desktop
width, light and dark, with screenshots."""
import pytest
from selenium.webdriver.common.by import By

from conftest import accessible, emulate, full_page_screenshot, register, text_in, virtual_authenticator, visible, wait
from mail_sink import MailSink, body_text, confirmation_token, wait_for_jobs  # Tests/System/Support, on the path through conftest

LAYOUTS = [(360, "light"), (360, "dark"), (1440, "light"), (1440, "dark")]


@pytest.fixture
def smtp():
    with MailSink() as sink:
        yield sink


@pytest.fixture
def mail_server(smtp):
    from latchkey_server import Server
    with Server("--smtp-url", smtp.url, "--smtp-from", "Latchkey <noreply@example.com>", "--recovery-email") as instance:
        yield instance




def give_address(driver, address):
    card = visible(driver, "email-card")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)
    field = driver.find_element(By.ID, "email-address")
    field.clear()
    field.send_keys(address)
    driver.find_element(By.ID, "email-save").click()
    local, domain = address.rsplit("@", 1)
    text_in(driver, "status", f"A confirmation link is on its way to {local}@{domain.lower()}.")


def email_state(driver):
    return driver.find_element(By.ID, "email-current").text, driver.find_element(By.ID, "email-status").text


def test_confirming_an_address_and_getting_a_recovery_link_by_email(mail_server, smtp, browser, other_browser):
    server = mail_server
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada Lovelace")
    hint = visible(browser, "email-hint").text
    assert "recovery link" in hint
    assert "Anyone who can read this mailbox can add a passkey" in browser.find_element(By.ID, "email-tradeoff").text

    # Signed in: the link confirms the address, and leaves the address bar before anything else.
    give_address(browser, "Ada@Example.com")
    assert email_state(browser) == ("Ada@example.com", "Not confirmed yet")
    link = f"{server.origin}/verify-email#{confirmation_token(smtp.wait(1)[3], server.origin)}"
    browser.get(link)
    text_in(browser, "status", "Your email address Ada@example.com is confirmed.")
    assert browser.current_url == f"{server.url}/"
    assert email_state(browser) == ("Ada@example.com", "Confirmed")
    wait(browser).until(lambda d: d.execute_script("return document.activeElement.id") == "email-title")
    wait(browser).until(lambda d: "Email address confirmed" in d.find_element(By.ID, "activity").text)

    # Signed out: the page asks to sign in first, then confirms the new address for the account signed in to.
    give_address(browser, "ada.lovelace@example.com")
    link = f"{server.origin}/verify-email#{confirmation_token(smtp.wait(2)[3], server.origin)}"
    browser.find_element(By.ID, "logout").click()
    visible(browser, "welcome")
    # The passkey is taken out of the authenticator while the link opens (passkey autofill would otherwise
    # sign straight in), and put back for the sign-in the page asks for.
    passkeys = browser.get_credentials()
    browser.remove_virtual_authenticator()
    browser.get(link)
    text_in(browser, "status", "Sign in to confirm your email address")
    assert browser.execute_script("return location.hash") == ""
    assert browser.current_url == f"{server.url}/verify-email"
    virtual_authenticator(browser)
    for passkey in passkeys:
        browser.add_credential(passkey)
    browser.find_element(By.ID, "login").click()
    text_in(browser, "status", "Your email address ada.lovelace@example.com is confirmed.")
    assert email_state(browser) == ("ada.lovelace@example.com", "Confirmed")
    assert browser.current_url == f"{server.url}/"

    # The same link again: the server's sentence.
    browser.get(link)
    text_in(browser, "error", "This confirmation link cannot be used")

    # Another device, no passkey: "Email me a recovery link".
    virtual_authenticator(other_browser)
    other_browser.get(server.url + "/recover")
    form = visible(other_browser, "recover-email-form")
    assert "confirmed email address" in form.text
    for address in ("nobody@example.com", "ada.lovelace@example.com"):
        field = other_browser.find_element(By.ID, "recover-email")
        field.clear()
        field.send_keys(address)
        other_browser.find_element(By.ID, "recover-email-send").click()
        text_in(other_browser, "status", f"If {address} is the confirmed address of an account here, a recovery link is on its way")
    wait_for_jobs(server.port, 4)
    _, recipients, _, message = smtp.wait(3)
    assert smtp.count() == 3 and recipients == ["ada.lovelace@example.com"]
    recovery_link = next(line for line in body_text(message).splitlines() if "/recover#" in line).strip()
    other_browser.get("about:blank")  # a link opened from the mail is a new page load, not a change of fragment
    other_browser.get(recovery_link)
    visible(other_browser, "recover-add-title")
    assert "Ada Lovelace" in other_browser.find_element(By.ID, "recover-add-title").text
    other_browser.find_element(By.ID, "recover-add-passkey").click()
    visible(other_browser, "recover-done-title")
    other_browser.find_element(By.ID, "recover-login").click()
    visible(other_browser, "account")
    text_in(other_browser, "status", "Signed in as Ada Lovelace.")
    wait(other_browser).until(lambda d: "A recovery link was emailed to your address" in d.find_element(By.ID, "activity").text)

    # Removing the address.
    card = visible(other_browser, "email-card")
    other_browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)
    other_browser.find_element(By.ID, "email-remove").click()
    text_in(other_browser, "status", "Your email address was removed.")
    assert not other_browser.find_element(By.ID, "email-state").is_displayed()


def test_an_older_session_confirms_the_address_with_a_passkey_first(smtp, browser):
    """--add-passkey-window at its least (10 s): past it, a link opened with the page does not prompt for a
    passkey by itself; "Confirm the address" asks for one, then confirms; giving a new address asks too."""
    import time
    from latchkey_server import Server
    with Server("--smtp-url", smtp.url, "--recovery-email", "--add-passkey-window", "10") as server:
        virtual_authenticator(browser)
        browser.get(server.url + "/")
        register(browser, "Ada Lovelace")
        give_address(browser, "ada@example.com")
        link = f"{server.origin}/verify-email#{confirmation_token(smtp.wait(1)[3], server.origin)}"
        time.sleep(11)  # the session is now older than the window (this waits; it measures nothing)
        browser.get(link)
        button = visible(browser, "email-confirm")
        text_in(browser, "status", "To confirm your email address, sign in again with your passkey")
        assert browser.execute_script("return document.activeElement.id") == "email-confirm"
        assert email_state(browser) == ("ada@example.com", "Not confirmed yet")
        button.click()
        text_in(browser, "status", "Your email address ada@example.com is confirmed.")
        assert not browser.find_element(By.ID, "email-confirm").is_displayed()

        time.sleep(11)
        field = browser.find_element(By.ID, "email-address")
        assert field.get_attribute("value") == "", "the confirmed address left the field"
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", field)
        field.send_keys("ada2@example.com")
        browser.find_element(By.ID, "email-save").click()
        text_in(browser, "status", "A confirmation link is on its way to ada2@example.com.")
        smtp.wait(2)


def test_without_mail_the_page_offers_none(server, browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Grace Hopper")
    visible(browser, "approve-card")
    assert not browser.find_element(By.ID, "email-card").is_displayed()
    browser.get(server.url + "/recover")
    visible(browser, "recovery-code")
    assert not browser.find_element(By.ID, "recover-email-form").is_displayed()


@pytest.mark.parametrize("width,scheme", LAYOUTS, ids=[f"{w}-{s}" for w, s in LAYOUTS])
def test_email_views_are_accessible(mail_server, smtp, browser, width, scheme):
    server = mail_server
    emulate(browser, width, scheme)
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada Lovelace")
    visible(browser, "email-card")
    accessible(browser, "account view with the email card")
    give_address(browser, "ada@example.com")
    accessible(browser, "account view with an unconfirmed address")
    full_page_screenshot(browser, f"email-unconfirmed-{width}-{scheme}")
    browser.get(f"{server.origin}/verify-email#{confirmation_token(smtp.wait(1)[3], server.origin)}")
    text_in(browser, "status", "is confirmed.")
    accessible(browser, "account view with a confirmed address")
    full_page_screenshot(browser, f"email-confirmed-{width}-{scheme}")

    browser.get(server.url + "/recover")
    visible(browser, "recover-email-form")
    accessible(browser, "recovery view with 'Email me a recovery link'")
    browser.find_element(By.ID, "recover-email").send_keys("ada@example.com")
    browser.find_element(By.ID, "recover-email-send").click()
    text_in(browser, "status", "a recovery link is on its way")
    accessible(browser, "recovery view after asking for a link")
    full_page_screenshot(browser, f"recover-email-{width}-{scheme}")
