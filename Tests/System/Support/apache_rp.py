"""A real OpenID Connect relying party for the tests: Debian's Apache httpd with mod_auth_openidc
(`libapache2-mod-auth-openidc`, on `apache2-bin`: the binary and modules without the system service), as a
private instance — its own ServerRoot, configuration, PidFile, logs,
runtime files and shared-memory cache in a temporary directory, listening on 127.0.0.1 only, on a free port.
Nothing of the system's /etc/apache2 is read. Standard library only (every test venv can import it).

What it serves:
- `/protected/` behind `AuthType openid-connect`: an SSI page (mod_include) that prints the claims
  mod_auth_openidc passes on (`OIDC_CLAIM_preferred_username`, `OIDC_CLAIM_sub`) and `REMOTE_USER`
  (`OIDCRemoteUserClaim sub`: the account id, which never passes to anyone else, where a username
  released by one account could be taken by another — review 4, S4-5), each in an element with an id
  the browser test reads.
- `/protected/redirect_uri`: mod_auth_openidc's own callback (`OIDCRedirectURI`), and its logout
  (`?logout=URL`: the session is ended here, then the browser goes to the provider's end_session_endpoint
  with `id_token_hint` and `post_logout_redirect_uri=URL`).
- `/loggedout.html`: a plain page, where the logout comes back to.
- `/healthz.html`: unprotected, to know it answers.

As root, the worker processes run as `www-data` (Apache refuses to serve as root); the directory is made
readable to it. As another user, Apache keeps that user (it changes users only when started as root).
"""
import os
import pathlib
import secrets
import shutil
import signal
import subprocess
import tempfile
import urllib.error
import urllib.request

from processes import free_port, reap, running, wait_until

APACHE = "/usr/sbin/apache2"
MODULES = "/usr/lib/apache2/modules"
RUN_AS = "www-data"


def installed():
    return os.path.exists(APACHE) and os.path.exists(f"{MODULES}/mod_auth_openidc.so")


PROTECTED_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Protected</title></head>
<body>
<h1>Protected by mod_auth_openidc</h1>
<p>Signed in as <span id="rp-username"><!--#echo var="OIDC_CLAIM_preferred_username" --></span>
(remote user <span id="remote-user"><!--#echo var="REMOTE_USER" --></span>,
sub <span id="sub"><!--#echo var="OIDC_CLAIM_sub" --></span>).</p>
<p><a id="logout" href="/protected/redirect_uri?logout=LOGGED_OUT_URL">Sign out</a></p>
</body></html>
"""

LOGGED_OUT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Signed out</title></head>
<body><h1 id="logged-out">You are signed out of the protected site.</h1></body></html>
"""


def configuration(*, root, port, provider_metadata_url, client_id, client_secret=None, pkce=False,
                  scope="openid profile", crypto_passphrase, run_as=None):
    """The whole httpd.conf of the private instance (see the module's doc). `client_secret` None: a public
    client (`OIDCProviderTokenEndpointAuth none`); `pkce`: `OIDCPKCEMethod S256`."""
    origin = f"http://127.0.0.1:{port}"
    modules = ["mpm_event", "authn_core", "authz_core", "authz_user", "mime", "dir", "include", "auth_openidc"]
    lines = [f"ServerRoot {root}", f"PidFile {root}/httpd.pid", f"Listen 127.0.0.1:{port}",
             f"ServerName 127.0.0.1:{port}", f"DefaultRuntimeDir {root}/run", f"ErrorLog {root}/error.log",
             # mod_auth_openidc at debug: the tests read what it verified (the id_token's header) from it.
             "LogLevel warn auth_openidc:debug", "LogFormat \"%h %t \\\"%r\\\" %>s %b\" common",
             f"CustomLog {root}/access.log common", f"Mutex file:{root}/run default"]
    lines += [f"LoadModule {name}_module {MODULES}/mod_{name}.so" for name in modules]
    if run_as:
        lines += [f"User {run_as}", f"Group {run_as}"]
    lines += [
        # Types by hand: /etc/mime.types comes with the apache2 package, not with apache2-bin.
        "TypesConfig /dev/null", "AddType text/html .html .shtml", "AddType text/plain .txt",
        "StartServers 1", "ServerLimit 1", "ThreadsPerChild 8", "MaxRequestWorkers 8",
        f"DocumentRoot {root}/htdocs",
        f"<Directory {root}/htdocs>", "  Require all granted", "  DirectoryIndex index.shtml index.html", "</Directory>",
        "AddOutputFilter INCLUDES .shtml",
        "",
        "# mod_auth_openidc, configured from the provider's discovery document.",
        f"OIDCProviderMetadataURL {provider_metadata_url}",
        f"OIDCRedirectURI {origin}/protected/redirect_uri",
        f"OIDCCryptoPassphrase {crypto_passphrase}",
        f"OIDCClientID {client_id}",
    ]
    if client_secret is not None:
        lines += [f"OIDCClientSecret {client_secret}", "OIDCProviderTokenEndpointAuth client_secret_basic"]
    else:
        lines += ["OIDCProviderTokenEndpointAuth none"]
    if pkce:
        lines += ["OIDCPKCEMethod S256"]
    lines += [
        f'OIDCScope "{scope}"',
        "OIDCRemoteUserClaim sub",
        "OIDCCacheType shm",
        # mod_auth_openidc's caches live in this instance's shared memory; its metadata cache directory
        # (for OIDCMetadataDir only) is not used.
        "<Location /protected/>", "  AuthType openid-connect", "  Require valid-user",
        "  Options +Includes", "</Location>",
        f"<Directory {root}/htdocs/protected>", "  Options +Includes", "</Directory>",
    ]
    return "\n".join(lines) + "\n"


class ApacheRP:
    """The private Apache with mod_auth_openidc (see the module's doc). `start()` writes everything and
    waits until it answers; `stop()` stops it (SIGTERM to the parent, which ends its children) and removes
    its directory unless `keep`."""

    def __init__(self, *, provider_metadata_url, client_id, client_secret=None, pkce=False, scope="openid profile", port=None):
        self.port = port or free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.redirect_uri = f"{self.origin}/protected/redirect_uri"
        self.protected_url = f"{self.origin}/protected/"
        self.logged_out_url = f"{self.origin}/loggedout.html"
        self.logout_url = f"{self.redirect_uri}?logout={urllib.request.quote(self.logged_out_url, safe='')}"
        self.provider_metadata_url = provider_metadata_url
        self.client_id = client_id
        self.client_secret = client_secret
        self.pkce = pkce
        self.scope = scope
        self.root = None
        self.pid = None

    def write(self):
        self.root = pathlib.Path(tempfile.mkdtemp(prefix="latchkey-apache."))
        run_as = RUN_AS if os.geteuid() == 0 else None
        (self.root / "run").mkdir()
        htdocs = self.root / "htdocs"
        (htdocs / "protected").mkdir(parents=True)
        (htdocs / "protected" / "index.shtml").write_text(
            PROTECTED_PAGE.replace("LOGGED_OUT_URL", urllib.request.quote(self.logged_out_url, safe="")))
        (htdocs / "loggedout.html").write_text(LOGGED_OUT_PAGE)
        (htdocs / "healthz.html").write_text("ok\n")
        (self.root / "httpd.conf").write_text(configuration(
            root=self.root, port=self.port, provider_metadata_url=self.provider_metadata_url,
            client_id=self.client_id, client_secret=self.client_secret, pkce=self.pkce, scope=self.scope,
            crypto_passphrase=secrets.token_urlsafe(32), run_as=run_as))
        if run_as:
            # The workers (www-data) read the documents; the configuration (with the secrets) stays root's:
            # the parent reads it before it starts them.
            os.chmod(self.root, 0o711)
            for path in [htdocs, htdocs / "protected"]:
                os.chmod(path, 0o755)
            for path in htdocs.rglob("*"):
                if path.is_file():
                    os.chmod(path, 0o644)
            shutil.chown(self.root / "run", RUN_AS, RUN_AS)
        os.chmod(self.root / "httpd.conf", 0o600)

    def answers(self):
        try:
            with urllib.request.urlopen(f"{self.origin}/healthz.html", timeout=1) as response:
                return response.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def start(self, seconds=30):
        self.write()
        check = subprocess.run([APACHE, "-t", "-f", str(self.root / "httpd.conf")], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"apache2 -t refused the configuration: {check.stderr.strip()}")
        # -DFOREGROUND: the parent stays our child (no daemon fork), so its pid is the Popen's.
        with open(self.root / "stderr.log", "a") as log:
            self.process = subprocess.Popen([APACHE, "-f", str(self.root / "httpd.conf"), "-DFOREGROUND"],
                                            stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
        self.pid = self.process.pid
        wait_until(lambda: self.answers() or not running(self.pid), seconds, f"Apache answering on {self.port}")
        if not running(self.pid):
            raise RuntimeError(f"Apache did not start:\n{self.logs()}")
        return self

    def logs(self):
        """Apache's error log and stderr (mod_auth_openidc's debug lines included), for a failure message."""
        text = ""
        for name in ("stderr.log", "error.log"):
            path = self.root / name if self.root else None
            if path and path.exists():
                text += f"--- {name}\n" + path.read_text(errors="replace")[-20000:]
        return text

    def stop(self, keep=False):
        if self.pid and running(self.pid):
            os.kill(self.pid, signal.SIGTERM)  # the parent stops its children, then itself
            reap(self.pid, seconds=15)
            self.process.wait(timeout=5)
        self.pid = None
        if self.root and not keep:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
