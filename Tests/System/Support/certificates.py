"""A test certificate authority and the server certificates it issues, made with Debian's `openssl` command
(standard library only otherwise, so the soft_webauthn venv of Tests/System/Operations and the browser venv of
Tests/System/Browser can both use it). Nothing here is trusted by anything but the test that made it: the CA's key
stays in the test's temporary directory and the CA certificate is handed to each client explicitly (curl's
--cacert, an NSS database of Chromium's own)."""
import base64
import hashlib
import os
import pathlib
import subprocess


def _openssl(*arguments, stdin=None):
    return subprocess.run(["openssl", *arguments], check=True, capture_output=True, input=stdin).stdout


class CertificateAuthority:
    """A CA (EC P-256, valid for a day) in `directory`: `ca.pem` is its certificate, `issue(...)` makes
    server certificates for 127.0.0.1 and localhost signed by it."""

    def __init__(self, directory, name="Latchkey test CA"):
        self.directory = pathlib.Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.key = self.directory / "ca.key"
        self.certificate = self.directory / "ca.pem"
        _openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(self.key))
        _openssl("req", "-x509", "-new", "-key", str(self.key), "-sha256", "-days", "1", "-subj", f"/CN={name}",
                 "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                 "-out", str(self.certificate))

    def issue(self, name, serial, hosts=("localhost",), addresses=("127.0.0.1",)):
        """A server certificate with this `serial` (an integer) for `hosts` and `addresses`, and a new key:
        returns (certificate chain path — the leaf then the CA, as certbot's fullchain.pem —, key path). The
        key is written 0600, as a server's key must be."""
        key = self.directory / f"{name}.key"
        request = self.directory / f"{name}.csr"
        leaf = self.directory / f"{name}.leaf.pem"
        chain = self.directory / f"{name}.pem"
        extensions = self.directory / f"{name}.ext"
        names = [f"DNS:{host}" for host in hosts] + [f"IP:{address}" for address in addresses]
        extensions.write_text(
            "basicConstraints=critical,CA:FALSE\n"
            "keyUsage=critical,digitalSignature\n"
            "extendedKeyUsage=serverAuth\n"
            f"subjectAltName={','.join(names)}\n")
        descriptor = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(descriptor)
        _openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(key))
        os.chmod(key, 0o600)
        _openssl("req", "-new", "-key", str(key), "-subj", f"/CN={hosts[0] if hosts else addresses[0]}", "-out", str(request))
        _openssl("x509", "-req", "-in", str(request), "-CA", str(self.certificate), "-CAkey", str(self.key),
                 "-set_serial", str(serial), "-days", "1", "-sha256", "-extfile", str(extensions), "-out", str(leaf))
        chain.write_bytes(leaf.read_bytes() + self.certificate.read_bytes())
        return chain, key


def serial_of(certificate_pem):
    """The first certificate's serial number in hexadecimal capitals, as `openssl x509 -noout -serial`
    prints it (and as latchkey serve logs it)."""
    text = _openssl("x509", "-noout", "-serial", stdin=certificate_pem).decode().strip()
    return text.split("=", 1)[1]


def spki_sha256_base64(certificate_path):
    """base64(SHA-256(SubjectPublicKeyInfo)) of a certificate: the form Chromium's key-pinning flags take."""
    public_key = _openssl("x509", "-in", str(certificate_path), "-noout", "-pubkey")
    der = _openssl("pkey", "-pubin", "-outform", "der", stdin=public_key)
    return base64.b64encode(hashlib.sha256(der).digest()).decode()
