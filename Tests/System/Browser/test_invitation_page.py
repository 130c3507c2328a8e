"""Issue 43 in a real Chromium: on-boarding from nothing. A server with `--oidc` takes no strangers (its
page says so instead of showing a sign-up form); an operator makes an invitation with `latchkey admin
invites create`; a fresh browser opens its link, sees who it is for and from which service, and creates
its passkey; the account has the invitation's username, email and groups; then the person signs in to an
app through OpenID Connect, and the app's id_token carries the groups. axe-core on every view, light and
dark, at a phone's 360 px; screenshots in .build/browser-screenshots."""
import base64
import json

import pytest
from selenium.webdriver.common.by import By

from conftest import accessible, emulate, full_page_screenshot, text_in, virtual_authenticator, visible, wait
from latchkey_server import admin  # Tests/System/Support, on the path of Tests/System/pytest.ini
from test_oidc_page import add_client, authorize_url, redeem, returned

REFUSAL = "This invitation cannot be used: it may be mistyped, expired, used up or revoked. Ask for a new one."
LAYOUTS = [(360, "light"), (360, "dark")]


@pytest.mark.parametrize("server", [("--oidc", "--rate-limit", "0")], indirect=True)
@pytest.mark.parametrize("width,scheme", LAYOUTS, ids=[f"{w}-{s}" for w, s in LAYOUTS])
def test_from_an_invitation_to_an_app(server, browser, width, scheme):
    emulate(browser, width, scheme)
    virtual_authenticator(browser)
    add_client(server)

    # A stranger on the welcome view: no sign-up form, the sentence instead.
    browser.get(server.url + "/")
    visible(browser, "welcome")
    wait(browser).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-signup") == "invite")
    assert not browser.find_element(By.ID, "welcome-form").is_displayed()
    notice = visible(browser, "signup-closed")
    assert "by invitation only" in notice.text and "ask the service’s operator" in notice.text
    accessible(browser, "welcome view, invitation only")
    full_page_screenshot(browser, f"invite-0-welcome-{width}-{scheme}")

    # The operator: one command.
    issued = json.loads(admin(server, "invites", "create", "--username", "grace", "--email", "grace@example.com",
                              "--group", "staff", "--group", "ops", "--origin", server.origin, "--json").stdout)
    code = issued["code"]

    # The person opens the link in a fresh browser: who it is for, from which service, nothing used yet.
    browser.delete_all_cookies()
    browser.get(issued["link"])
    visible(browser, "invite-create-step")
    assert browser.find_element(By.ID, "invite-create-title").text == "Your account at Latchkey"
    assert browser.find_element(By.ID, "invite-origin").text == f"at {server.origin}"
    assert browser.find_element(By.ID, "invite-username").text == "grace"
    assert browser.find_element(By.ID, "invite-email").text == "grace@example.com"
    assert browser.find_element(By.ID, "invite-groups").text == "staff, ops"
    assert browser.find_element(By.ID, "invite-name").get_attribute("value") == "grace"
    text_in(browser, "status", "This invitation is for grace at Latchkey.")
    # The code left the address bar and the page at once; nothing is stored.
    assert browser.current_url == f"{server.url}/invite", browser.current_url
    assert code not in browser.page_source
    assert browser.execute_script("return JSON.stringify(localStorage) + JSON.stringify(sessionStorage)") == "{}{}"
    accessible(browser, "invitation view")
    full_page_screenshot(browser, f"invite-1-invitation-{width}-{scheme}")

    name = browser.find_element(By.ID, "invite-name")
    name.clear()
    name.send_keys("Grace Hopper")
    browser.find_element(By.ID, "invite-create").click()
    visible(browser, "invite-done-title")
    text_in(browser, "status", "Your passkey was saved")
    assert len(browser.get_credentials()) == 1
    assert browser.execute_script("return document.cookie") == ""
    accessible(browser, "invitation done")
    full_page_screenshot(browser, f"invite-2-done-{width}-{scheme}")

    browser.find_element(By.ID, "invite-login").click()
    visible(browser, "account")
    text_in(browser, "status", "Signed in as Grace Hopper.")
    assert browser.current_url == f"{server.url}/"
    # The profile form, as the page loads it (the login's answer carries no username): the invitation's.
    browser.refresh()
    visible(browser, "account")
    wait(browser).until(lambda d: d.find_element(By.ID, "username").get_attribute("value") == "grace")

    account = browser.execute_async_script(
        "const done = arguments[0]; fetch('api/account').then(r => r.json()).then(a => done(a.id), e => done(String(e)));")
    detail = json.loads(admin(server, "accounts", "show", account, "--json").stdout)
    assert detail["username"] == "grace" and detail["email"] == "grace@example.com" and detail["groups"] == ["staff", "ops"]
    assert detail["account"]["displayName"] == "Grace Hopper" and len(detail["passkeys"]) == 1

    # Signed in to an app: consent, back with a code, and the id_token says who and in which groups.
    browser.get(authorize_url(server, scope="openid profile email groups"))
    visible(browser, "oidc-consent-step")
    browser.find_element(By.ID, "oidc-allow").click()
    answer = returned(browser)
    status, tokens, _ = redeem(server, answer["code"])
    assert status == 200, tokens
    claims = json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[1] + "=="))
    assert claims["sub"] == account and claims["preferred_username"] == "grace", claims
    assert claims["groups"] == ["staff", "ops"], claims

    # The link again: used, the one answer, and the code form to try another.
    browser.get(issued["link"])
    text_in(browser, "error", REFUSAL)
    assert visible(browser, "invite-form").is_displayed()
    accessible(browser, "refused invitation")
    full_page_screenshot(browser, f"invite-3-refused-{width}-{scheme}")


def test_a_domains_person_signs_up_by_a_mailed_link(browser):
    """`--signup-domain`: the welcome view asks for an address at the domain; the link mailed there makes the account."""
    import re
    from latchkey_server import Server
    from mail_sink import MailSink, body_text
    with MailSink() as smtp, Server("--signup", "invite", "--signup-domain", "example.com", "--smtp-url", smtp.url,
                                    "--smtp-from", "Latchkey Test <noreply@example.com>", "--rate-limit", "0") as server:
        emulate(browser, 360, "light")
        virtual_authenticator(browser)
        browser.get(server.url + "/")
        form = visible(browser, "signup-email-form")
        assert "Have an address at example.com?" in form.text
        accessible(browser, "welcome view with a sign-up domain")
        full_page_screenshot(browser, "invite-4-domain-welcome-360-light")
        field = browser.find_element(By.ID, "signup-email")
        field.send_keys("eve@elsewhere.org")
        browser.find_element(By.ID, "signup-email-send").click()
        text_in(browser, "error", "Only addresses at example.com may sign up here on their own")
        field.clear()
        field.send_keys("ada@example.com")
        browser.find_element(By.ID, "signup-email-send").click()
        text_in(browser, "status", "A link to make your account is on its way to ada@example.com.")
        link = re.search(re.escape(server.origin) + r"/invite#[A-Z2-7-]{29}", body_text(smtp.wait(1)[3])).group(0)
        wait(browser).until(lambda d: json.loads(admin(server, "invites", "list", "--json").stdout)[0]["mailedAt"])
        browser.get(link)
        visible(browser, "invite-create-step")
        assert browser.find_element(By.ID, "invite-email").text == "ada@example.com"
        assert not browser.find_element(By.ID, "invite-username").is_displayed()
        name = browser.find_element(By.ID, "invite-name")
        name.send_keys("Ada Lovelace")
        browser.find_element(By.ID, "invite-create").click()
        visible(browser, "invite-done-title")
        browser.find_element(By.ID, "invite-login").click()
        visible(browser, "account")
        text_in(browser, "status", "Signed in as Ada Lovelace.")
        accounts = json.loads(admin(server, "accounts", "list", "--json").stdout)["accounts"]
        detail = json.loads(admin(server, "accounts", "show", accounts[0]["id"], "--json").stdout)
        assert detail["email"] == "ada@example.com" and detail["emailVerified"] is True
