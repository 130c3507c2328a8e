"""Forward authentication through real proxies from Debian — nginx (`auth_request`) and Caddy
(`forward_auth`) — each protecting a small app that prints the identity headers it was given, driven by
headless Chromium with a virtual authenticator (docs/forward-auth.md).

The names: Latchkey's page at http://login.fa.localhost:PORT, the app at http://app.fa.localhost:PORT behind
each proxy, RP ID and cookie domain `fa.localhost`. Chromium resolves every `*.localhost` name to loopback
and treats it as a secure context, so passkeys work over plain http, and the session cookie set with
`Domain=fa.localhost` on the login host reaches the app's host, as it would under a real domain.

For each proxy: an anonymous visit lands on Latchkey's page, the passkey signs the person in, and the
browser is back on the address it asked for, showing the right user and groups; a path that needs a group
the person lacks is refused with a page naming the group; a client's own Remote-* headers never reach the
app; a disabled account stops passing within the stated bound (5 s, the cache's lifetime); after a logout
on Latchkey the app asks again. And the return address is never one off the cookie domain.
"""
import http.client
import http.server
import json
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.parse

import pytest
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from chromium import platform_authenticator, start_browser
import latchkey_server
from latchkey_server import ROOT, Server, admin
from processes import Nginx, free_port, reap, running, wait_until

CADDY = "/usr/bin/caddy"
DOMAIN = "fa.localhost"
BOUND = 5  # --forward-auth-cache-ttl's default: the stated bound on how late a change counts
SCREENSHOTS = pathlib.Path(os.environ.get("LATCHKEY_SCREENSHOTS", ROOT / ".build" / "forward-auth-screenshots"))
RULES = ("app.fa.localhost/admin groups=admins", "app.fa.localhost signed-in", "*.fa.localhost deny")


# ---- the protected app: prints what it was given ----

class EchoApp:
    """A tiny HTTP app on 127.0.0.1 that answers every GET with a page of the identity headers it received,
    and remembers each request's headers (to show what reached it)."""

    def __init__(self):
        self.requests = []
        app = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the standard library's name)
                app.requests.append({name.lower(): value for name, value in self.headers.items()})
                cells = "".join(
                    f'<p id="{name.lower()}">{self.headers.get(name, "(none)")}</p>'
                    for name in ("Remote-User", "Remote-Name", "Remote-Email", "Remote-Groups"))
                body = f'<!doctype html><title>App</title><h1 id="app">The app</h1><p id="path">{self.path}</p>{cells}'.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


# ---- the proxies ----

NGINX_CONF = """
daemon off;
worker_processes 1;
pid {prefix}/nginx.pid;
events {{ worker_connections 256; }}
http {{
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;

    server {{
        listen 127.0.0.1:{port};
        server_name app.{domain};

        location = /healthz {{ return 200 "ok"; }}

        location = /latchkey-check {{
            internal;
            proxy_pass http://127.0.0.1:{latchkey}/api/forward-auth;
            proxy_method GET;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header X-Original-URL $scheme://$http_host$request_uri;
        }}

        location / {{
            auth_request /latchkey-check;
            auth_request_set $latchkey_location $upstream_http_location;
            error_page 401 403 =302 $latchkey_location;

            auth_request_set $latchkey_user   $upstream_http_remote_user;
            auth_request_set $latchkey_name   $upstream_http_remote_name;
            auth_request_set $latchkey_email  $upstream_http_remote_email;
            auth_request_set $latchkey_groups $upstream_http_remote_groups;
            proxy_set_header Remote-User   $latchkey_user;
            proxy_set_header Remote-Name   $latchkey_name;
            proxy_set_header Remote-Email  $latchkey_email;
            proxy_set_header Remote-Groups $latchkey_groups;

            proxy_pass http://127.0.0.1:{app};
        }}
    }}
}}
"""

CADDYFILE = """
{{
	admin off
	auto_https off
	storage file_system {prefix}/data
}}

http://app.{domain}:{port} {{
	bind 127.0.0.1
	handle /healthz {{
		respond "ok" 200
	}}
	# route: the directives in the order written (Caddy's own order puts forward_auth before request_header).
	route {{
		request_header -Remote-User
		request_header -Remote-Name
		request_header -Remote-Email
		request_header -Remote-Groups
		forward_auth 127.0.0.1:{latchkey} {{
			uri /api/forward-auth
			copy_headers Remote-User Remote-Name Remote-Email Remote-Groups
		}}
		reverse_proxy 127.0.0.1:{app}
	}}
}}
"""


def answers(port, host):
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/healthz", headers={"Host": host})
        ok = connection.getresponse().status == 200
        connection.close()
        return ok
    except OSError:
        return False


class NginxProxy:
    name = "nginx"

    def __init__(self, latchkey_port, app_port):
        self.directory = tempfile.mkdtemp(prefix="latchkey-fa-nginx-")
        self.port = free_port()
        self.nginx = Nginx(pathlib.Path(self.directory), self.port)
        conf = pathlib.Path(self.directory) / "nginx.conf"
        conf.write_text(NGINX_CONF.format(prefix=self.directory, port=self.port, domain=DOMAIN, latchkey=latchkey_port, app=app_port))
        self.nginx.start(conf, ready=lambda: answers(self.port, f"app.{DOMAIN}"))

    def logs(self):
        path = pathlib.Path(self.directory) / "error.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def stop(self):
        self.nginx.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


class CaddyProxy:
    name = "caddy"

    def __init__(self, latchkey_port, app_port):
        self.directory = tempfile.mkdtemp(prefix="latchkey-fa-caddy-")
        self.port = free_port()
        path = pathlib.Path(self.directory) / "Caddyfile"
        path.write_text(CADDYFILE.format(prefix=self.directory, port=self.port, domain=DOMAIN, latchkey=latchkey_port, app=app_port))
        environment = dict(os.environ, HOME=self.directory, XDG_DATA_HOME=self.directory, XDG_CONFIG_HOME=self.directory)
        self.log = open(pathlib.Path(self.directory) / "caddy.log", "a")
        self.process = subprocess.Popen([CADDY, "run", "--config", str(path), "--adapter", "caddyfile"], stdout=self.log,
                                        stderr=self.log, stdin=subprocess.DEVNULL, env=environment, start_new_session=True)
        wait_until(lambda: answers(self.port, f"app.{DOMAIN}") or self.process.poll() is not None, 30, f"caddy answering on {self.port}")
        if self.process.poll() is not None:
            raise RuntimeError("caddy did not start:\n" + self.logs())

    def logs(self):
        self.log.flush()
        return (pathlib.Path(self.directory) / "caddy.log").read_text(errors="replace")[-4000:]

    def stop(self):
        if running(self.process.pid):
            os.kill(self.process.pid, signal.SIGTERM)
            reap(self.process.pid)
        self.process.wait(timeout=30)
        self.log.close()
        shutil.rmtree(self.directory, ignore_errors=True)


PROXIES = {"nginx": NginxProxy, "caddy": CaddyProxy}


def installed(name):
    return Nginx.installed() if name == "nginx" else os.path.exists(CADDY)


# ---- fixtures ----

@pytest.fixture(scope="module")
def latchkey():
    # The origin names the port, which Server chooses itself (latchkey_server.free_port): chosen here first.
    port = free_port()
    flags = ["--rp-id", DOMAIN, "--cookie-domain", DOMAIN, "--origin", f"http://login.{DOMAIN}:{port}"]
    for rule in RULES:
        flags += ["--forward-auth-rule", rule]
    chooser = latchkey_server.free_port
    latchkey_server.free_port = lambda: port
    try:
        server = Server(*flags)
    finally:
        latchkey_server.free_port = chooser
    assert server.port == port
    server.page = f"http://login.{DOMAIN}:{port}"
    yield server
    server.stop()


@pytest.fixture(scope="module")
def app():
    instance = EchoApp()
    yield instance
    instance.stop()


@pytest.fixture(params=list(PROXIES))
def proxy(request, latchkey, app):
    if not installed(request.param):
        pytest.skip(f"{request.param} is not installed (scripts/provision installs it)")
    instance = PROXIES[request.param](latchkey.port, app.port)
    yield instance
    instance.stop()


@pytest.fixture
def browser():
    driver = start_browser()
    driver.add_virtual_authenticator(platform_authenticator())
    yield driver
    driver.quit()


# ---- helpers ----

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


def sign_up(driver, latchkey, name, username, *groups):
    """A passkey made on Latchkey's page; the operator gives the account a username and groups. Signed out
    again afterwards (the passkey stays in the browser's authenticator)."""
    driver.get(latchkey.page + "/")
    field = wait(driver).until(lambda d: d.find_element(By.ID, "passkey-name") if d.find_element(By.ID, "passkey-name").is_displayed() else None)
    field.send_keys(name)
    driver.find_element(By.ID, "register").click()
    wait(driver).until(lambda d: d.find_element(By.ID, "account").is_displayed())
    status, account = page_fetch(driver, "GET", "api/account")
    assert status == 200, account
    options = ["--username", username]
    for group in groups:
        options += ["--group", group]
    admin(latchkey, "accounts", "set", account["id"], *options)
    return account["id"]


def sign_out(driver, latchkey):
    if not driver.current_url.startswith(latchkey.page + "/"):
        driver.get(latchkey.page + "/")
        wait(driver).until(lambda d: d.execute_script("return document.readyState") == "complete")
    status, _ = page_fetch(driver, "POST", "api/logout")
    assert status in (204, 401), status


def state(driver):
    return driver.execute_script("return document.body && document.body.dataset ? document.body.dataset.forwardAuth || null : null")


def visit_and_sign_in(driver, latchkey, url):
    """Opens `url` on the app: Latchkey's page asks for the passkey (or the page's passkey autofill, which
    Chromium's virtual authenticator answers at once, signs in by itself); back on `url`. The autofill can
    be so quick that the browser is back before a look at Latchkey's page: that it went through the page is
    read off Latchkey's log instead (the page's question, GET /api/forward-auth/verdict)."""
    asked = latchkey.log_text().count("path=/api/forward-auth/verdict ")
    driver.get(url)
    wait(driver).until(lambda d: d.current_url == url or (d.current_url.startswith(latchkey.page + "/forward-auth?rd=") and state(d) == "login"))
    if driver.current_url != url:
        # The autofill may sign in and leave the page between that look and this one: then there is no button
        # to wait for, and the browser is back on `url` already.
        def button_or_back(d):
            if d.current_url == url:
                return "back"
            try:
                button = d.find_element(By.ID, "login")
                return button if button.is_displayed() else None
            except WebDriverException:
                return None
        found = wait(driver).until(button_or_back)
        if found != "back":
            try:
                found.click()
            except WebDriverException:
                pass  # the autofill got there first and the page moved on
    wait(driver).until(lambda d: d.current_url == url)
    assert latchkey.log_text().count("path=/api/forward-auth/verdict ") > asked, "not through Latchkey's page"


def session_cookie(driver, latchkey):
    """The session cookie's value, read where it lives (the browser's jar), for requests made from here."""
    driver.get(latchkey.page + "/")
    cookie = driver.get_cookie("latchkey_session")
    assert cookie and cookie.get("domain", "").lstrip(".") == DOMAIN, cookie
    return cookie["value"]


def through(proxy, path, cookie=None, headers=None):
    """A request to the app through the proxy from here: (status, headers, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=10)
    sent = {"Host": f"app.{DOMAIN}:{proxy.port}", **(headers or {})}
    if cookie:
        sent["Cookie"] = f"latchkey_session={cookie}"
    connection.request("GET", path, headers=sent)
    response = connection.getresponse()
    body = response.read().decode(errors="replace")
    result = (response.status, {k.lower(): v for k, v in response.getheaders()}, body)
    connection.close()
    return result


# ---- the tests ----

def test_one_passkey_touch_behind_each_proxy(latchkey, app, proxy, browser):
    app_url = f"http://app.{DOMAIN}:{proxy.port}"
    username = f"alice-{proxy.name}"
    account_id = sign_up(browser, latchkey, f"Alice {proxy.name}", username, "staff")
    sign_out(browser, latchkey)
    try:
        # Anonymous → Latchkey's page → passkey → back on the very address, as the right person.
        target = f"{app_url}/notes?id=7&q=a%20b"
        visit_and_sign_in(browser, latchkey, target)
        assert browser.find_element(By.ID, "remote-user").text == username
        assert browser.find_element(By.ID, "remote-name").text == f"Alice {proxy.name}"
        assert browser.find_element(By.ID, "remote-groups").text == "staff"
        assert browser.find_element(By.ID, "path").text == "/notes?id=7&q=a%20b"
        screenshot(browser, f"{proxy.name}-1-back-on-the-app")

        # A path for the group "admins": refused with a page that names it.
        browser.get(f"{app_url}/admin/panel")
        wait(browser).until(lambda d: "admins" in d.find_element(By.TAG_NAME, "body").text)
        assert not browser.find_elements(By.ID, "app")
        if proxy.name == "nginx":
            # nginx shows its own 403 page unless sent on: Latchkey's page says it.
            assert browser.current_url.startswith(latchkey.page + "/forward-auth?rd=") and state(browser) == "refused"
        else:
            assert browser.current_url == f"{app_url}/admin/panel"
            assert browser.find_element(By.ID, "forward-auth-reason").text.startswith("Only members of the group “admins”")
        screenshot(browser, f"{proxy.name}-2-refused")

        # The client's own identity headers never reach the app: replaced, or removed when Latchkey has none.
        cookie = session_cookie(browser, latchkey)
        before = len(app.requests)
        status, _, body = through(proxy, "/spoof", cookie, {
            "Remote-User": "mallory", "Remote-Email": "mallory@evil.test", "Remote-Groups": "admins", "Remote-Name": "Mallory"})
        assert status == 200, body
        seen = app.requests[-1]
        assert len(app.requests) == before + 1
        assert seen.get("remote-user") == username and seen.get("remote-groups") == "staff", seen
        assert "mallory" not in json.dumps(seen).lower(), seen
        # Without a session the app is not reached at all, whatever the client sends.
        status, headers, _ = through(proxy, "/spoof", None, {"Remote-User": "mallory"})
        assert status == 302 and headers["location"].startswith(latchkey.page + "/forward-auth?rd="), (status, headers)
        assert len(app.requests) == before + 1

        # A disabled account stops passing within the stated bound (its sessions end; the cache keeps a
        # found session BOUND seconds at most).
        admin(latchkey, "accounts", "disable", account_id)
        disabled_at = time.monotonic()
        while through(proxy, "/after-disable", cookie)[0] == 200:
            assert time.monotonic() - disabled_at < BOUND + 1.5, "still passing past the bound"
            time.sleep(0.2)
        admin(latchkey, "accounts", "enable", account_id)

        # Signed in again; then a logout on Latchkey: the next request to the app asks again.
        visit_and_sign_in(browser, latchkey, f"{app_url}/again")
        assert browser.find_element(By.ID, "remote-user").text == username
        sign_out(browser, latchkey)
        # No autofill from here on, so the page stays on its question.
        browser.remove_virtual_authenticator()
        browser.get(f"{app_url}/after-logout")
        wait(browser).until(lambda d: d.current_url.startswith(latchkey.page + "/forward-auth?rd=") and state(d) == "login")
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(browser.current_url).query)["rd"] == [f"{app_url}/after-logout"]
        screenshot(browser, f"{proxy.name}-3-asked-again")
    except Exception:
        screenshot(browser, f"{proxy.name}-failed")
        raise AssertionError(f"at {browser.current_url}\n--- {proxy.name}\n{proxy.logs()}\n--- latchkey\n{latchkey.log_text()[-4000:]}")


OPEN_REDIRECTS = [
    "https://evil.test/", "http://evil.test/", "//evil.test/", "http://fa.localhost.evil.test/", "http://evilfa.localhost/",
    "http://app.fa.localhost@evil.test/", "http://evil.test\\@app.fa.localhost/", "http:\\\\evil.test", "http:/\\evil.test",
    "http:evil.test", "http://evil.test%2F.fa.localhost/", "http://evil.test%2f@app.fa.localhost/", "javascript:alert(1)//app.fa.localhost",
    "data:text/html,<script>alert(1)</script>", "/\\evil.test", "http://app.fa.localhost./", "\thttp://evil.test", "http://evil.test#.fa.localhost",
]


def test_no_open_redirect(latchkey):
    """Each trick on the return address: the page's question is a 400, and the page itself stays on Latchkey."""
    for rd in OPEN_REDIRECTS:
        status, body = latchkey.call("GET", "/api/forward-auth/verdict?rd=" + urllib.parse.quote(rd, safe=""))
        assert status == 400 and body["error"]["code"] == "invalid_return_url", (rd, status, body)
    # The proxy's headers with the same tricks: a 400, never a Location off the domain.
    for rd in OPEN_REDIRECTS:
        status, body, headers = latchkey.raw("GET", "/api/forward-auth", b"", headers={"X-Original-URL": rd})
        assert status == 400 and "location" not in {k.lower() for k in headers}, (rd, status, headers)
    # A legitimate address is sent to the sign-in page with it; an encoded slash stays a path.
    status, _, headers = latchkey.raw("GET", "/api/forward-auth", b"", headers={"X-Original-URL": "http://app.fa.localhost/%2F%2Fevil.test"})
    location = {k.lower(): v for k, v in headers.items()}["location"]
    assert status == 401 and location == latchkey.page + "/forward-auth?rd=" + urllib.parse.quote("http://app.fa.localhost/%2F%2Fevil.test", safe="")


def test_the_page_refuses_a_foreign_return_address(latchkey, browser):
    browser.get(latchkey.page + "/forward-auth?rd=" + urllib.parse.quote("https://evil.test/", safe=""))
    wait(browser).until(lambda d: state(d) == "error")
    assert browser.current_url.startswith(latchkey.page + "/")
    assert "not one Latchkey sends people back to" in browser.find_element(By.ID, "forward-auth-message").text
