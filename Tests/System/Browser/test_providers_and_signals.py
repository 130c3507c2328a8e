"""Issue 15 in a real Chromium: provider names and icons in the passkey list (with the page's CSP as it
is), backup state, and the WebAuthn L3 signals called with the right arguments — or skipped quietly by
a browser that lacks them."""
import json
import os
import subprocess

from selenium.webdriver.common.by import By

from conftest import ROOT, change_display_name, register, screenshot, text_in, virtual_authenticator, visible, wait

APPLE_PASSWORDS = "fbfc3007-154e-4ecc-8c0b-6e020557d7bd"
LATCHKEY = os.environ.get("LATCHKEY_BIN", str(ROOT / ".build" / "debug" / "latchkey"))

# Records every signal the page sends, before the page's own scripts run, and still passes each call on
# to the browser (Chromium has the methods).
RECORD_SIGNALS = """
window.__signals = [];
for (const method of ["signalUnknownCredential", "signalAllAcceptedCredentials", "signalCurrentUserDetails"]) {
  const original = PublicKeyCredential[method];
  PublicKeyCredential[method] = async (options) => {
    window.__signals.push([method, JSON.parse(JSON.stringify(options))]);
    return original ? original.call(PublicKeyCredential, options) : undefined;
  };
}
"""

# A browser from before WebAuthn Level 3's signals: the methods are not there at all.
REMOVE_SIGNALS = """
for (const method of ["signalUnknownCredential", "signalAllAcceptedCredentials", "signalCurrentUserDetails"]) {
  delete PublicKeyCredential[method];
}
window.__signalsMissing = ["signalUnknownCredential", "signalAllAcceptedCredentials", "signalCurrentUserDetails"]
  .every((m) => !(m in PublicKeyCredential));
"""


def before_page_scripts(driver, source):
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})


def fetch_json(driver, method, path, body=None):
    """A same-origin request from the page, with its session cookie: (status, parsed body)."""
    return driver.execute_async_script("""
        const [method, path, body, done] = arguments;
        fetch(path, {method, headers: body === null ? {} : {"Content-Type": "application/json"}, body: body === null ? undefined : JSON.stringify(body)})
          .then(async (r) => done([r.status, r.status === 204 ? null : await r.json()]), (e) => done([0, String(e)]));""",
        method, path, body)


def add_passkey_from_another_provider(driver, server, tmp_path, aaguid):
    """The signed-in account gets a passkey made by `latchkey authenticator` claiming `aaguid` (with
    attestation none, as the server asks): how a passkey saved in, say, iCloud Keychain arrives."""
    status, options = fetch_json(driver, "POST", "api/registration/options", {})
    assert status == 200, options
    made = subprocess.run(
        [LATCHKEY, "authenticator", "create", "--origin", server.url, "--aaguid", aaguid, "--store", str(tmp_path / "provider.json")],
        input=json.dumps(options), capture_output=True, text=True, check=True)
    status, added = fetch_json(driver, "POST", "api/registration/verify", {"credential": json.loads(made.stdout)})
    assert status == 201, added
    return added["passkey"]


def remove_passkey_from_another_provider(driver, server, tmp_path, status_text):
    """Adds an Apple Passwords passkey to the signed-in account, reloads the page, removes that passkey
    through the list and waits for `status_text`; returns the removed passkey's JSON."""
    added = add_passkey_from_another_provider(driver, server, tmp_path, APPLE_PASSWORDS)
    driver.refresh()
    visible(driver, "account")
    wait(driver).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#passkeys > li")) == 2)
    row = driver.find_element(By.CSS_SELECTOR, f'#passkeys > li[data-id="{added["id"]}"]')
    row.find_element(By.XPATH, ".//button[text()='Remove']").click()
    row.find_element(By.XPATH, ".//button[text()='Remove passkey']").click()
    text_in(driver, "status", status_text)
    return added


def test_provider_names_and_icons(server, browser, tmp_path):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada")
    added = add_passkey_from_another_provider(browser, server, tmp_path, APPLE_PASSWORDS)
    assert added["provider"]["name"] == "Apple Passwords"

    browser.refresh()
    visible(browser, "account")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#passkeys > li")) == 2)
    rows = {row.get_attribute("data-id"): row for row in browser.find_elements(By.CSS_SELECTOR, "#passkeys > li")}
    apple = rows[added["id"]]
    chromium = next(row for passkey_id, row in rows.items() if passkey_id != added["id"])
    assert "Apple Passwords" in apple.find_element(By.CSS_SELECTOR, ".badge-provider").text
    assert "Synced passkey" in apple.find_element(By.CSS_SELECTOR, ".badge-backup").text
    # Chromium's virtual authenticator has an AAGUID of its own that no provider list holds.
    assert chromium.find_element(By.CSS_SELECTOR, ".badge-provider").text == "Unknown provider"
    assert chromium.find_elements(By.CSS_SELECTOR, "img.provider-icon") == [], "an unknown provider keeps the key symbol"

    # The icon is a file of this origin and it loaded: the page's policy still says img-src 'self' only.
    image = apple.find_element(By.CSS_SELECTOR, "img.provider-icon")
    assert image.get_attribute("src").endswith(f"/provider-icons/{APPLE_PASSWORDS}/light.svg")
    wait(browser).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image))
    policy = browser.execute_async_script(
        "const done = arguments[0]; fetch('/').then(r => done(r.headers.get('content-security-policy')));")
    assert "img-src 'self';" in policy and "data:" not in policy
    browser.execute_script("arguments[0].scrollIntoView()", apple)
    screenshot(browser, "6-provider-names")


def test_signals_are_sent_with_the_right_arguments(server, browser, tmp_path):
    before_page_scripts(browser, RECORD_SIGNALS)
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada")
    _, account = fetch_json(browser, "GET", "api/account")
    user_id = account["userHandle"]

    # A new display name: the passkey manager is told the current names.
    change_display_name(browser, "Ada Lovelace")
    details = [arguments for method, arguments in browser.execute_script("return window.__signals") if method == "signalCurrentUserDetails"]
    assert details == [{"rpId": "localhost", "userId": user_id, "name": "Ada Lovelace", "displayName": "Ada Lovelace"}]

    # A passkey removed: the manager is told which passkeys remain, by the same ids the API gives.
    added = remove_passkey_from_another_provider(browser, server, tmp_path, "Removed the passkey")
    _, signals = fetch_json(browser, "GET", "api/account/signals")
    accepted = [arguments for method, arguments in browser.execute_script("return window.__signals") if method == "signalAllAcceptedCredentials"]
    assert accepted == [{"rpId": "localhost", "userId": user_id, "allAcceptedCredentialIds": signals["allAcceptedCredentialIds"]}]
    assert added["id"] not in signals["allAcceptedCredentialIds"] and len(signals["allAcceptedCredentialIds"]) == 1
    # What a native client reads for the same purpose agrees with what the page sent.
    assert signals == {"rpId": "localhost", "userId": user_id, "name": "Ada Lovelace", "displayName": "Ada Lovelace",
                       "allAcceptedCredentialIds": signals["allAcceptedCredentialIds"]}


def test_a_browser_without_signals_still_works(server, browser, tmp_path):
    before_page_scripts(browser, REMOVE_SIGNALS)
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    assert browser.execute_script("return window.__signalsMissing") is True
    register(browser, "Grace")
    change_display_name(browser, "Grace Hopper")
    assert browser.find_element(By.ID, "error").text == ""

    # Without the signal the person is told to tidy the password manager by hand.
    remove_passkey_from_another_provider(browser, server, tmp_path, "Also remove it from your password manager.")
    assert browser.find_element(By.ID, "error").text == ""
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#passkeys > li")) == 1)


def test_a_metadata_icon_where_the_list_has_none(server, browser, tmp_path):
    """Chromium's virtual authenticator's AAGUID is in no provider list; once the operator loads FIDO
    metadata naming it with an icon, the list shows the metadata's name and that icon, loaded from
    /provider-icons/{aaguid}/metadata (a file of this origin: the page's policy stays img-src 'self', and
    no data: URL enters the page)."""
    import base64
    import struct
    import zlib
    from metadata_blob import PKI, entry, payload  # Tests/System/Support, on the path through conftest

    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada")
    _, [passkey] = fetch_json(browser, "GET", "api/account/passkeys")
    assert passkey["provider"] is None

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(b"\x00\x00\x80\xff\xff")) + chunk(b"IEND", b""))
    pki = PKI()
    blob = pki.blob(payload(1, [entry(passkey["aaguid"], "Chromium Virtual Key", icon="data:image/png;base64," + base64.b64encode(png).decode())]))
    (tmp_path / "blob.jwt").write_bytes(blob)
    (tmp_path / "root.pem").write_bytes(pki.root_pem())
    loaded = subprocess.run([LATCHKEY, "mds", "load", str(tmp_path / "blob.jwt"), "--root", str(tmp_path / "root.pem"),
                             "--database", server.database], capture_output=True, text=True, timeout=60)
    assert loaded.returncode == 0, loaded.stderr

    browser.refresh()
    visible(browser, "account")
    row = wait(browser).until(lambda d: d.find_element(By.CSS_SELECTOR, "#passkeys > li"))
    assert row.find_element(By.CSS_SELECTOR, ".badge-provider").text == "Chromium Virtual Key"
    image = row.find_element(By.CSS_SELECTOR, "img.provider-icon")
    assert image.get_attribute("src").endswith(f"/provider-icons/{passkey['aaguid']}/metadata")
    wait(browser).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image))
    assert "data:" not in browser.page_source
    assert row.find_element(By.CSS_SELECTOR, ".passkey-icon").get_attribute("aria-hidden") == "true"
