"""FIDO metadata BLOBs for tests (the real one cannot be fetched here): a metadata service's certificates made
with `cryptography` — root → intermediate → signing leaf —, the BLOB as a compact JWS signed ES256 or RS256
with the leaf and the intermediate in its `x5c`, and its entries. `latchkey serve --mds-blob FILE --mds-root
PEM` and `latchkey mds load FILE --root PEM` take them with `PKI.root_pem()` as the root. Used by
Tests/System/Policy (test_mds.py, test_metadata_icons.py) and Tests/System/Browser (the page's metadata icons)."""
import base64
import copy
import datetime
import json

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

LEGAL = "Retrieval and use of this BLOB indicates acceptance of the appropriate agreement located at https://fidoalliance.org/metadata/metadata-legal-terms/"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def today(days=0):
    return (datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=days)).isoformat()


class PKI:
    """A metadata service's certificates: root → intermediate → signing leaf (EC P-256, or RSA for RS256)."""

    def __init__(self, name="Test Metadata Root", rsa_leaf=False):
        now = datetime.datetime.now(datetime.timezone.utc)
        self.root_key = ec.generate_private_key(ec.SECP256R1())
        self.root = self._certificate(name, name, self.root_key.public_key(), self.root_key, now, ca=True)
        self.intermediate_key = ec.generate_private_key(ec.SECP256R1())
        self.intermediate = self._certificate(f"{name} Intermediate", name, self.intermediate_key.public_key(), self.root_key, now, ca=True)
        self.leaf_key = rsa.generate_private_key(65537, 2048) if rsa_leaf else ec.generate_private_key(ec.SECP256R1())
        self.leaf = self._certificate("mds.example.test", f"{name} Intermediate", self.leaf_key.public_key(), self.intermediate_key, now, ca=False)

    @staticmethod
    def _certificate(subject, issuer, public_key, signer, now, ca):
        builder = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                   .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
                   .public_key(public_key).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=365))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if ca:
            builder = builder.add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        else:
            builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False)
        return builder.sign(signer, hashes.SHA256())

    def root_pem(self):
        return self.root.public_bytes(serialization.Encoding.PEM)

    def blob(self, payload, tamper=None):
        """The compact JWS of `payload`; `tamper` changes the payload after signing."""
        rs256 = isinstance(self.leaf_key, rsa.RSAPrivateKey)
        header = {"alg": "RS256" if rs256 else "ES256", "typ": "JWT",
                  "x5c": [base64.b64encode(c.public_bytes(serialization.Encoding.DER)).decode() for c in (self.leaf, self.intermediate)]}
        signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(payload).encode())}".encode()
        if rs256:
            signature = self.leaf_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        else:
            r, s = decode_dss_signature(self.leaf_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
            signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        if tamper:
            payload = copy.deepcopy(payload)
            tamper(payload)
            signing_input = f"{signing_input.decode().split('.')[0]}.{b64url(json.dumps(payload).encode())}".encode()
        return signing_input + b"." + b64url(signature).encode()


def entry(aaguid, description, roots=(), statuses=(("FIDO_CERTIFIED_L1", "2024-01-02"),), icon=None):
    statement = {"legalHeader": LEGAL, "aaguid": aaguid, "description": description, "schema": 3, "protocolFamily": "fido2",
                 "attestationTypes": ["basic_full"], "attestationRootCertificates": list(roots)}
    if icon:
        statement["icon"] = icon
    return {"aaguid": aaguid, "metadataStatement": statement,
            "statusReports": [{"status": status, "effectiveDate": date} for status, date in statuses],
            "timeOfLastStatusChange": "2024-01-02"}


def payload(number, entries, next_update=None, legal=True):
    document = {"no": number, "nextUpdate": next_update or today(30), "entries": entries}
    if legal:
        document["legalHeader"] = LEGAL
    return document
