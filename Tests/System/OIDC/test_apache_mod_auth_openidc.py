"""A real relying party from Debian — Apache httpd with mod_auth_openidc (`libapache2-mod-auth-openidc`),
configured from Latchkey's discovery document — driven by headless Chromium with a virtual authenticator:
the person signs up with a passkey on Latchkey's page, opens the page Apache protects, is sent to Latchkey's
/authorize, allows the app (or not, for a first-party one), comes back to Apache's page, which shows
their preferred_username; signs out through Apache, which sends them to Latchkey's end_session_endpoint and
back; and opening the protected page again asks again (Latchkey's page, not the protected content).

Once with a confidential client (client_secret_basic, id_tokens signed RS256), once with a public client
(no secret, PKCE S256, ES256; first-party, so no consent screen), where the person signs in with the
passkey from Latchkey's authorize view.

Latchkey is at http://localhost:PORT (a passkey's RP ID is a domain, never an IP address); Apache at
http://127.0.0.1:PORT — another site, so Latchkey's SameSite=Strict session cookie is not sent on the
navigation from Apache, as on any real deployment.
"""
import json
import os
import pathlib
import re

import pytest
from selenium.common.exceptions import ElementNotInteractableException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from oidc_support import Provider, query_of

import apache_rp
from chromium import platform_authenticator, start_browser
from processes import ROOT, free_port

SCREENSHOTS = pathlib.Path(os.environ.get("LATCHKEY_SCREENSHOTS", ROOT / ".build" / "oidc-screenshots"))

pytestmark = pytest.mark.skipif(not apache_rp.installed(), reason="apache2 and libapache2-mod-auth-openidc are not installed (scripts/provision installs them)")


@pytest.fixture(scope="module")
def provider():
    """Chromium's passkeys need user verification (its virtual authenticator does it): the default."""
    instance = Provider(user_verification="required")
    yield instance
    instance.stop()


@pytest.fixture
def browser():
    """Chromium started as Tests/System/Browser starts it, with a platform authenticator that verifies the user."""
    driver = start_browser()
    driver.add_virtual_authenticator(platform_authenticator())
    yield driver
    driver.quit()


def wait(driver, seconds=30):
    return WebDriverWait(driver, seconds)


def screenshot(driver, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def page_fetch(driver, method, path, body=None):
    """A same-origin request from Latchkey's page, with its session cookie: (status, parsed body)."""
    return driver.execute_async_script("""
        const [method, path, body, done] = arguments;
        const init = {method, credentials: "same-origin", headers: {}};
        if (body !== null) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
        fetch(path, init).then(async (r) => { const t = await r.text(); let j = null; try { j = JSON.parse(t); } catch {}
          done([r.status, j]); }, (e) => done([0, String(e)]));""", method, path, body)


def sign_up(driver, provider, display_name, username, by_operator=False):
    """Registers a passkey on Latchkey's page (at /) and gives the account a username: as the person does,
    through PATCH /api/account with the page's session, or as an operator does (`latchkey admin accounts
    set ACCOUNT --username …`). Returns the account id."""
    driver.get(provider.issuer + "/")
    field = wait(driver).until(lambda d: d.find_element(By.ID, "passkey-name") if d.find_element(By.ID, "passkey-name").is_displayed() else None)
    field.send_keys(display_name)
    driver.find_element(By.ID, "register").click()
    wait(driver).until(lambda d: d.find_element(By.ID, "account").is_displayed())
    status, account = page_fetch(driver, "GET", "api/account")
    assert status == 200, account
    if by_operator:
        provider.set_account(account["id"], "--username", username)
    else:
        status, changed = page_fetch(driver, "PATCH", "api/account", {"username": username})
        assert status == 200, changed
        status, account = page_fetch(driver, "GET", "api/account")
        assert status == 200 and account["username"] == username, account
    return account["id"]


def oidc_state(driver):
    """`document.body.dataset.oidc` on Latchkey's page (None elsewhere)."""
    return driver.execute_script("return document.body && document.body.dataset ? document.body.dataset.oidc || null : null")


def on_latchkey(driver, provider):
    return driver.current_url.startswith(provider.issuer + "/")


def protected_text(driver, rp, element_id):
    """The text of an element of Apache's protected page once the browser is there."""
    wait(driver).until(lambda d: d.current_url.startswith(rp.protected_url) and d.find_elements(By.ID, element_id))
    return driver.find_element(By.ID, element_id).text


def fail_with_logs(rp, provider, driver, what):
    screenshot(driver, f"failed-{what}")
    log = pathlib.Path(provider.server.directory.name, "server.log")
    server_log = log.read_text(errors="replace")[-6000:] if log.exists() else ""
    return (f"{what}: the browser is at {driver.current_url} (oidc state {oidc_state(driver)!r})\n"
            f"{rp.logs()[-8000:]}\n--- latchkey\n{server_log}")


def verified_by_apache(rp, alg):
    """mod_auth_openidc's debug log (LogLevel auth_openidc:debug) says it parsed and verified an id_token
    whose header names `alg`: the RP checked Latchkey's signature itself, with the key from the JWKS."""
    log = (rp.root / "error.log").read_text(errors="replace")
    headers = re.findall(r"successfully parsed \(and possibly decrypted\) JWT with header=(\{[^}]*\})", log)
    assert headers, "mod_auth_openidc parsed no id_token"
    assert all(json.loads(header)["alg"] == alg for header in headers), headers
    return log


def sign_out_and_ask_again(driver, provider, rp, name):
    """Sign-out through Apache: mod_auth_openidc ends its session and sends the browser to Latchkey's
    end_session_endpoint with id_token_hint and post_logout_redirect_uri; Latchkey signs the person out and
    sends them back to the registered page. The protected page then asks again."""
    driver.find_element(By.ID, "logout").click()
    try:
        wait(driver).until(lambda d: d.current_url.startswith(rp.logged_out_url) and d.find_elements(By.ID, "logged-out"))
    except Exception:
        pytest.fail(fail_with_logs(rp, provider, driver, f"{name}-logout"))
    screenshot(driver, f"{name}-3-logged-out")
    # Latchkey's own session ended too (RP-Initiated Logout §2). The authenticator is taken away first:
    # Chromium's virtual one answers the page's passkey autofill at once, and the person would be signed
    # in again without a look at the page.
    driver.remove_virtual_authenticator()
    driver.get(provider.issuer + "/")
    wait(driver).until(lambda d: d.find_element(By.ID, "welcome").is_displayed())
    status, _ = page_fetch(driver, "GET", "api/account")
    assert status == 401
    # The protected page asks again: the browser lands on Latchkey's authorize view, asking to sign in.
    driver.get(rp.protected_url)
    try:
        wait(driver).until(lambda d: on_latchkey(d, provider) and oidc_state(d) == "login")
    except Exception:
        pytest.fail(fail_with_logs(rp, provider, driver, f"{name}-asked-again"))
    assert "/authorize?" in driver.current_url
    assert not driver.find_elements(By.ID, "rp-username")
    screenshot(driver, f"{name}-4-asked-again")


def test_confidential_rs256_client(provider, browser):
    port = free_port()
    rp_origin = f"http://127.0.0.1:{port}"
    client_id, secret, client = provider.add_client(
        "Apache (confidential)", [f"{rp_origin}/protected/redirect_uri"], alg="RS256",
        post_logout_uris=[f"{rp_origin}/loggedout.html"], scopes=("openid", "profile"))
    assert (client["idTokenAlg"], client["public"], client["redirectUris"]) == ("RS256", False, [f"{rp_origin}/protected/redirect_uri"]), client
    account_id = sign_up(browser, provider, "Alice Example", "alice")
    rp = apache_rp.ApacheRP(provider_metadata_url=f"{provider.issuer}/.well-known/openid-configuration",
                            client_id=client_id, client_secret=secret, port=port)
    try:
        rp.start()
        browser.get(rp.protected_url)
        # Latchkey's page in its authorize view: signed in already (the cookie goes with the page's own
        # request), so it asks for consent the first time.
        try:
            wait(browser).until(lambda d: on_latchkey(d, provider) and oidc_state(d) == "consent")
        except Exception:
            pytest.fail(fail_with_logs(rp, provider, browser, "confidential-consent"))
        assert "/authorize?" in browser.current_url
        screenshot(browser, "confidential-1-consent")
        browser.find_element(By.ID, "oidc-allow").click()
        try:
            assert protected_text(browser, rp, "rp-username") == "alice"
        except Exception:
            pytest.fail(fail_with_logs(rp, provider, browser, "confidential-protected"))
        assert browser.find_element(By.ID, "remote-user").text == account_id  # OIDCRemoteUserClaim sub
        assert browser.find_element(By.ID, "sub").text == account_id
        screenshot(browser, "confidential-2-protected")
        log = verified_by_apache(rp, "RS256")
        assert f"url={provider.issuer}/oidc/userinfo" in log, "mod_auth_openidc asked userinfo"
        sign_out_and_ask_again(browser, provider, rp, "confidential")
        # mod_auth_openidc revoked the access token at the revocation_endpoint before sending the browser on.
        assert f"url={provider.issuer}/oidc/revoke" in (rp.root / "error.log").read_text(errors="replace")
    finally:
        rp.stop()


def test_public_client_with_pkce(provider, browser):
    port = free_port()
    rp_origin = f"http://127.0.0.1:{port}"
    client_id, secret, _ = provider.add_client(
        "Apache (public)", [f"{rp_origin}/protected/redirect_uri"], public=True, first_party=True,
        post_logout_uris=[f"{rp_origin}/loggedout.html"], scopes=("openid", "profile"))
    assert secret is None
    account_id = sign_up(browser, provider, "Bob Example", "bob", by_operator=True)
    # Signed out of Latchkey first: the authorize view must sign the person in with the passkey.
    assert page_fetch(browser, "POST", "api/logout")[0] == 204
    rp = apache_rp.ApacheRP(provider_metadata_url=f"{provider.issuer}/.well-known/openid-configuration",
                            client_id=client_id, client_secret=None, pkce=True, port=port)
    try:
        rp.start()
        # The passkey leaves the browser for a moment, so that the page's passkey autofill cannot sign in
        # before the test has looked at the sign-in view; it comes back before "Log in with a passkey".
        [passkey] = browser.get_credentials()
        browser.remove_virtual_authenticator()
        browser.get(rp.protected_url)
        try:
            wait(browser).until(lambda d: on_latchkey(d, provider) and oidc_state(d) == "login")
        except Exception:
            pytest.fail(fail_with_logs(rp, provider, browser, "public-login"))
        asked = query_of(browser.current_url)
        assert browser.current_url.startswith(provider.discovery["authorization_endpoint"] + "?")
        assert (asked["client_id"], asked["code_challenge_method"], len(asked["code_challenge"])) == (client_id, "S256", 43), asked
        assert asked["redirect_uri"] == rp.redirect_uri and asked["scope"] == "openid profile", asked
        assert "Apache (public)" in browser.find_element(By.ID, "oidc-context").get_attribute("textContent")
        screenshot(browser, "public-1-login")
        browser.add_virtual_authenticator(platform_authenticator())
        browser.add_credential(passkey)
        # "Log in with a passkey" — unless the page's autofill request, still open, took the passkey first.
        try:
            if oidc_state(browser) == "login":
                browser.find_element(By.ID, "login").click()
        except (ElementNotInteractableException, StaleElementReferenceException):
            pass
        try:
            assert protected_text(browser, rp, "rp-username") == "bob"
        except Exception:
            pytest.fail(fail_with_logs(rp, provider, browser, "public-protected"))
        assert browser.find_element(By.ID, "sub").text == account_id
        screenshot(browser, "public-2-protected")
        log = verified_by_apache(rp, "ES256")
        token_request = re.search(r"url=\S+/oidc/token, data=(\S*)", log)
        assert token_request and "code_verifier=" in token_request.group(1), "the token request carried the PKCE verifier"
        assert "client_secret=" not in token_request.group(1)
        sign_out_and_ask_again(browser, provider, rp, "public")
    finally:
        rp.stop()
