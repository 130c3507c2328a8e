"""The page for everyone: axe-core's WCAG 2.1 A/AA rules on every view (the account view with its Recent
activity card filled), at phone and desktop width, in light and dark; the delete dialog's keyboard
behaviour; and a screenshot of each view to look at."""
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import (accessible,
    activity, axe_violations, element_screenshot, emulate, full_page_screenshot, screenshot, text_in, virtual_authenticator, visible,
    wait,
)

LAYOUTS = [(360, "light"), (360, "dark"), (1440, "light"), (1440, "dark")]




@pytest.mark.parametrize("width,scheme", LAYOUTS, ids=[f"{w}-{s}" for w, s in LAYOUTS])
def test_every_view_is_accessible(server, browser, width, scheme):
    emulate(browser, width, scheme)
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    visible(browser, "welcome")
    accessible(browser, "welcome view")
    full_page_screenshot(browser, f"welcome-{width}-{scheme}")

    field = browser.find_element(By.ID, "passkey-name")
    field.send_keys("Ada Lovelace")
    browser.find_element(By.ID, "register").click()
    visible(browser, "account")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#passkeys > li")) == 1)
    browser.find_element(By.ID, "credo").send_keys("Imagination is the discovery faculty, pre-eminently.")
    browser.find_element(By.ID, "update").click()
    text_in(browser, "status", "Saved.")
    # The Recent activity card, refreshed after the save: the sign-up and the profile change.
    wait(browser).until(lambda d: len(activity(d)) == 3)
    accessible(browser, "account view")
    full_page_screenshot(browser, f"account-{width}-{scheme}")
    element_screenshot(browser.find_element(By.ID, "activity-card"), f"activity-{width}-{scheme}")

    # A passkey in the middle of renaming, and a message in the error line: both have to pass too.
    rename = browser.find_element(By.CSS_SELECTOR, "#passkeys > li button")
    # In the middle of the viewport: scrolled to its top edge, the sticky "Saved." would take the click.
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", rename)
    rename.click()
    visible(browser, browser.find_element(By.CSS_SELECTOR, ".passkey-rename input").get_attribute("id"))
    browser.execute_script("document.getElementById('error').textContent = 'An example error message, to check its contrast.'")
    accessible(browser, "account view while renaming, with an error")
    full_page_screenshot(browser, f"account-renaming-{width}-{scheme}")
    browser.execute_script("document.getElementById('error').textContent = ''")

    browser.find_element(By.ID, "delete").click()
    visible(browser, "delete-dialog")
    accessible(browser, "delete dialog")
    # The viewport only: a modal dialog and its backdrop are drawn over the viewport, not the whole page.
    screenshot(browser, f"delete-dialog-{width}-{scheme}")


def test_delete_dialog_traps_focus_and_closes_on_escape(server, browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    field = visible(browser, "passkey-name")
    field.send_keys("Grace\n")
    visible(browser, "account")
    opener = browser.find_element(By.ID, "delete")
    opener.send_keys(Keys.ENTER)
    visible(browser, "delete-dialog")
    focused = lambda: browser.switch_to.active_element.get_attribute("id")  # noqa: E731
    # It opens on the safe choice.
    assert focused() == "cancel-delete"
    inside = {"cancel-delete", "confirm-delete"}
    seen = []
    for _ in range(5):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        seen.append(focused())
    assert set(seen) <= inside and set(seen) == inside, f"Tab left the dialog: {seen}"
    for _ in range(5):
        browser.switch_to.active_element.send_keys(Keys.SHIFT, Keys.TAB)
        assert focused() in inside
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait(browser).until(lambda d: not d.find_element(By.ID, "delete-dialog").is_displayed())
    assert focused() == "delete", "focus returns to the button that opened the dialog"
    assert browser.find_element(By.ID, "account").is_displayed(), "Escape deleted nothing"


def test_keyboard_only_journey(server, browser):
    """Register, edit the profile, rename the passkey and log out without a mouse: every step is reached
    with Tab and pressed with Enter or Space, and the focus is always visible where it lands."""
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    visible(browser, "welcome")
    active = lambda: browser.switch_to.active_element  # noqa: E731

    def tab_to(element_id, limit=30):
        for _ in range(limit):
            if active().get_attribute("id") == element_id:
                return active()
            active().send_keys(Keys.TAB)
        raise AssertionError(f"Tab never reached #{element_id}")

    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    tab_to("passkey-name").send_keys("Keyboard user")
    tab_to("register").send_keys(Keys.ENTER)
    visible(browser, "account")
    assert active().get_attribute("id") == "account-title", "the new view takes the focus"
    tab_to("credo").send_keys("Tab, type, Enter.")
    tab_to("update").send_keys(Keys.SPACE)
    text_in(browser, "status", "Saved.")
    outline = active().value_of_css_property("outline-style")
    assert outline != "none", "the focused button shows where the focus is"

    rename = browser.find_element(By.CSS_SELECTOR, "#passkeys > li button")
    browser.execute_script("arguments[0].focus()", rename)
    active().send_keys(Keys.ENTER)
    field = active()
    assert field.tag_name == "input", "Rename moves the focus to the new name"
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("Laptop\n")
    text_in(browser, "status", "Renamed to Laptop.")
    wait(browser).until(lambda d: d.find_element(By.CSS_SELECTOR, "#passkeys .passkey-name").text == "Laptop")

    tab_to("logout", limit=60).send_keys(Keys.ENTER)
    visible(browser, "welcome")
    text_in(browser, "status", "Signed out.")


def test_axe_finds_a_planted_violation(server, browser):
    """The check above can fail: the same harness, on the same page with an unlabelled field and
    low-contrast text planted in it, reports both."""
    browser.get(server.url + "/")
    visible(browser, "welcome")
    browser.execute_script(
        "const field = document.createElement('input'); document.getElementById('welcome').append(field);"
        "const faint = document.createElement('p'); faint.textContent = 'faint'; faint.style.color = '#ddd';"
        "faint.style.background = '#fff'; document.getElementById('welcome').append(faint);")
    found = {v["id"] for v in axe_violations(browser)}
    assert {"label", "color-contrast"} <= found, found
