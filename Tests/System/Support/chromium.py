"""Headless Chromium (Debian's, with its chromedriver) for the suites that drive Latchkey's page: Tests/System/Browser
and Tests/System/OIDC's Apache relying party. One way to start it, so that both get the same options."""
import os
import pathlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions


def start_browser():
    """A headless Chromium of its own (its own profile: no cookies or storage shared with another)."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    options.add_argument("--headless=new")
    options.add_argument("--window-size=420,900")
    options.add_argument("--disable-gpu")
    options.add_argument("--disable-dev-shm-usage")
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(30)
    return driver


def platform_authenticator(user_verified=True):
    """The options of a platform authenticator (CTAP2, internal, discoverable credentials) that verifies
    the user unless told not to, as `driver.add_virtual_authenticator` takes them."""
    return VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True,
        has_user_verification=True, is_user_consenting=True, is_user_verified=user_verified,
    )


AXE_SCRIPT = None
WCAG_21_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_violations(driver):
    """axe-core on the page as it is now, WCAG 2.0/2.1 A and AA rules only. The axe-core 4.x that
    axe-playwright-python bundles is used (only its script file: Playwright itself is not used); the one
    axe-selenium-python bundles is 3.1, which predates the WCAG 2.1 rules. The script goes in through
    WebDriver, which the page's CSP does not govern. Returns the violations with their nodes."""
    global AXE_SCRIPT
    if AXE_SCRIPT is None:
        import importlib.util
        package = importlib.util.find_spec("axe_playwright_python")
        assert package is not None, "axe-playwright-python is missing from the browser venv (Tests/System/Browser/requirements.txt)"
        AXE_SCRIPT = (pathlib.Path(package.submodule_search_locations[0]) / "axe.min.js").read_text()
    driver.execute_script(AXE_SCRIPT)
    results = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})"
        "  .then(r => done({violations: r.violations, version: axe.version}), e => done({error: String(e)}));",
        WCAG_21_A_AA)
    assert "error" not in results, results.get("error")
    assert results["version"].startswith("4."), f"axe-core {results['version']} has no WCAG 2.1 rules"
    return [
        {"id": v["id"], "impact": v["impact"], "help": v["help"],
         "nodes": [(n["target"], n.get("failureSummary", "")) for n in v["nodes"]]}
        for v in results["violations"]
    ]


def accessible(driver, view):
    """axe-core finds no WCAG 2.1 A/AA violation on what `driver` shows (`view` names it in the failure)."""
    violations = axe_violations(driver)
    assert violations == [], f"axe found WCAG 2.1 A/AA violations on the {view}:\n" + "\n".join(
        f"- {v['id']} ({v['impact']}): {v['help']}\n    " + "\n    ".join(f"{t}: {s}" for t, s in v["nodes"])
        for v in violations)
