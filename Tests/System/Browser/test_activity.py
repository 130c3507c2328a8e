"""The Recent activity card: the account's own history as sentences, newest first, refreshed after the
page's own actions, a page at a time, and every string from the server shown as text."""
import re

from selenium.webdriver.common.by import By

from conftest import activity, element_screenshot, register, text_in, virtual_authenticator, visible, wait

# Where the page's requests come from, as the server describes them (the headless browser's user agent
# says Chrome on Linux; the server listens on 127.0.0.1).
FROM = " — Chrome on Linux, 127.0.0.1"


def sentences(driver):
    """The card's sentences without where each came from (asserted once, below)."""
    return [text.removesuffix(FROM) for text in activity(driver)]


def rename_in_page(driver, name):
    """Renames the newest passkey (the last in the list) through its Rename button."""
    button = driver.find_elements(By.CSS_SELECTOR, "#passkeys > li")[-1].find_element(By.XPATH, ".//button[text()='Rename']")
    # Out from under the sticky message line first.
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    field = driver.find_element(By.CSS_SELECTOR, ".passkey-rename input")
    field.clear()
    field.send_keys(name + "\n")
    text_in(driver, "status", "Renamed to")


def test_sign_up_sign_in_and_a_new_passkey_in_order(server, browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada Lovelace")
    card = visible(browser, "activity-card")
    wait(browser).until(lambda d: len(activity(d)) == 2)
    assert activity(browser) == ["Passkey “Ada Lovelace” added" + FROM, "Account created" + FROM]
    assert "Not you? Sign out everywhere and remove the passkey" in card.text
    assert not browser.find_element(By.ID, "activity-more").is_displayed(), "two events: nothing more to show"

    browser.find_element(By.ID, "logout").click()
    visible(browser, "welcome")
    assert activity(browser) == [], "signed out: no one's history on the page"
    browser.find_element(By.ID, "login").click()
    text_in(browser, "status", "Signed in as Ada Lovelace.")
    wait(browser).until(lambda d: len(activity(d)) == 4)
    assert sentences(browser) == [
        "Signed in with the passkey “Ada Lovelace”", "Signed out", "Passkey “Ada Lovelace” added", "Account created"]

    # A second passkey from a second authenticator: the card refreshes after the page's own action.
    browser.remove_virtual_authenticator()
    virtual_authenticator(browser)
    browser.find_element(By.ID, "add-passkey").click()
    text_in(browser, "status", "Added the passkey")
    added = re.match(r"Added the passkey (.+?)\. Rename", browser.find_element(By.ID, "status").text).group(1)
    wait(browser).until(lambda d: len(activity(d)) == 5)
    assert sentences(browser) == [
        f"Passkey “{added}” added", "Signed in with the passkey “Ada Lovelace”", "Signed out",
        "Passkey “Ada Lovelace” added", "Account created"]
    items = browser.find_elements(By.CSS_SELECTOR, "#activity > li")
    times = [item.find_element(By.TAG_NAME, "time") for item in items]
    stamps = [t.get_attribute("datetime") for t in times]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z", s) for s in stamps), stamps
    assert stamps == sorted(stamps, reverse=True), "newest first"
    assert all(t.text for t in times), "each time is also said in words"
    element_screenshot(card, "6-recent-activity")

    # A name with markup in it stays text.
    rename_in_page(browser, "<b>Spare</b>")
    wait(browser).until(lambda d: len(activity(d)) == 6)
    assert sentences(browser)[0] == f"Passkey “{added}” renamed to “<b>Spare</b>”"
    assert browser.find_elements(By.CSS_SELECTOR, "#activity b") == []


def test_show_more_loads_the_next_page(server, browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Grace")
    wait(browser).until(lambda d: len(activity(d)) == 2)
    # Nine renames behind the page's back (another tab, say), then one in the page: twelve events.
    statuses = browser.execute_async_script("""
        const [id, done] = arguments;
        (async () => {
          const answers = [];
          for (let i = 1; i <= 9; i += 1) {
            const answer = await fetch(`api/account/passkeys/${id}`, {method: "PATCH",
              headers: {"Content-Type": "application/json"}, body: JSON.stringify({name: `Name ${i}`})});
            answers.push(answer.status);
          }
          return answers;
        })().then(done, (e) => done(String(e)));""",
        browser.find_element(By.CSS_SELECTOR, "#passkeys > li").get_attribute("data-id"))
    assert statuses == [200] * 9, statuses
    rename_in_page(browser, "Laptop")
    wait(browser).until(lambda d: sentences(d)[:1] == ["Passkey “Name 9” renamed to “Laptop”"])
    assert len(activity(browser)) == 10
    more = visible(browser, "activity-more")
    assert more.text == "Show more"
    more.click()
    wait(browser).until(lambda d: len(activity(d)) == 12)
    assert sentences(browser)[-3:] == ["Passkey “Grace” renamed to “Name 1”", "Passkey “Grace” added", "Account created"]
    assert not more.is_displayed(), "the last page: the button goes"
    focused = browser.switch_to.active_element
    assert focused.tag_name == "li" and focused == browser.find_elements(By.CSS_SELECTOR, "#activity > li")[10], \
        "the focus moves to the first event the button brought"


def test_an_event_the_page_does_not_know_still_reads_as_a_sentence(server, browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Lin")
    wait(browser).until(lambda d: len(activity(d)) == 2)
    # A newer server's page of events: a kind this page has no words for, odd details, markup in strings.
    browser.execute_script("""
        const original = window.fetch;
        window.fetch = async (url, init) => {
          if (!String(url).startsWith("api/account/events")) return original(url, init);
          const event = (id, kind, extra) => ({id, at: "2026-01-02T03:04:05Z", event: kind, passkeyId: null, provider: null,
            device: null, clientAddress: null, byOperator: false, detail: {}, ...extra});
          const page = {next: null, events: [
            event("9", "passkey.teleported", {detail: {weird: [1, 2]}}),
            event("8", "login.refused", {provider: "<img src=x>", device: "<i>Browser</i>", clientAddress: "203.0.113.7",
              detail: {code: "signature_invalid", step: "§7.2 step 20"}}),
            event("7", "account.disabled", {byOperator: true}),
            event("6", "sessions.revoked", {device: "Firefox on Windows", clientAddress: "198.51.100.2"}),
          ]};
          return new Response(JSON.stringify(page), {status: 200, headers: {"Content-Type": "application/json"}});
        };""")
    browser.find_element(By.ID, "credo").send_keys("Unknown, not broken.")
    browser.find_element(By.ID, "update").click()
    text_in(browser, "status", "Saved.")
    wait(browser).until(lambda d: len(activity(d)) == 4)
    assert activity(browser) == [
        "Account event: passkey teleported",
        "Refused sign-in with <img src=x> (signature did not verify) — <i>Browser</i>, 203.0.113.7",
        "Your account was disabled by the service’s operator",
        "Signed out everywhere — Firefox on Windows, 198.51.100.2",
    ]
    assert browser.find_elements(By.CSS_SELECTOR, "#activity img, #activity i") == []
    assert "activity-alert" in browser.find_elements(By.CSS_SELECTOR, "#activity > li")[1].get_attribute("class")
    assert browser.find_element(By.CSS_SELECTOR, "#activity time").get_attribute("datetime") == "2026-01-02T03:04:05.000Z"
