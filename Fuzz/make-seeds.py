#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora and trust anchors, derived from the shared WebAuthn vectors,
Examples/ and the tests' byte fixtures, so that nothing is copied by hand and the repository stays small.

Usage: Fuzz/make-seeds.py VECTORS_JSON OUT_DIR
Writes OUT_DIR/<target>/<sha1> (one seed per file, libFuzzer's naming) and OUT_DIR/anchors/<fmt>/*.pem
(the vectors' roots, as `TrustAnchors.load(directory:)` reads them; scripts/fuzz passes that directory
in LATCHKEY_FUZZ_ANCHORS).
"""
import base64
import datetime
import hashlib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Vectors without verification_time have certificates valid on this day (the vectors' README).
DEFAULT_TIME = datetime.datetime(2026, 11, 21, tzinfo=datetime.timezone.utc)


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor_item(data, i):
    """A minimal CBOR reader (definite lengths, what attestation objects use): (value, next offset)."""
    head = data[i]
    major, info = head >> 5, head & 0x1F
    i += 1
    if info < 24:
        arg = info
    elif info <= 27:
        size = 1 << (info - 24)
        arg = int.from_bytes(data[i:i + size], "big")
        i += size
    else:
        raise ValueError("indefinite or reserved")
    if major in (0, 1, 7):
        return arg, i
    if major == 2:
        return bytes(data[i:i + arg]), i + arg
    if major == 3:
        return bytes(data[i:i + arg]).decode("utf-8", "replace"), i + arg
    if major == 4:
        items = []
        for _ in range(arg):
            item, i = cbor_item(data, i)
            items.append(item)
        return items, i
    if major == 5:
        entries = {}
        for _ in range(arg):
            key, i = cbor_item(data, i)
            value, i = cbor_item(data, i)
            entries[key if not isinstance(key, list) else str(key)] = value
        return entries, i
    return cbor_item(data, i)  # tag: the tagged item


def collect_tokens(value, tokens):
    """Member names and short strings of a JSON document (base64url payloads are left out)."""
    if isinstance(value, dict):
        for key, member in value.items():
            tokens.add(key)
            collect_tokens(member, tokens)
    elif isinstance(value, list):
        for item in value:
            collect_tokens(item, tokens)
    elif isinstance(value, str) and len(value) <= 40 and value.isascii():
        tokens.add(value)


class Corpus:
    def __init__(self, out):
        self.out = out
        self.counts = {}

    def add(self, target, data):
        if isinstance(data, str):
            data = data.encode()
        directory = os.path.join(self.out, target)
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)
        self.counts[target] = self.counts.get(target, 0) + 1


def swift_string_literals(path):
    """The string literals of a Swift test file, raw (#"…"#) and plain ("…", common escapes only)."""
    text = open(path, encoding="utf-8").read()
    for match in re.finditer(r'#"(.*?)"#', text):
        yield match.group(1)
    for match in re.finditer(r'(?<![#\\])"((?:[^"\\\n]|\\.)*)"', text):
        literal = match.group(1)
        literal = re.sub(r"\\u\{([0-9a-fA-F]+)\}", lambda m: chr(int(m.group(1), 16)), literal)
        for escape, char in (('\\"', '"'), ("\\n", "\n"), ("\\r", "\r"), ("\\t", "\t"), ("\\0", "\0"), ("\\\\", "\\")):
            literal = literal.replace(escape, char)
        yield literal


def main(vectors_path, out):
    corpus = Corpus(out)
    vectors = json.load(open(vectors_path))["vectors"]
    # The ceremony documents only (Examples/ also holds the EmbeddedApp sources).
    examples = [json.load(open(os.path.join(ROOT, "Examples", name)))
                for name in sorted(os.listdir(os.path.join(ROOT, "Examples"))) if name.endswith(".json")]
    anchors = set()
    tokens = set()

    for doc in vectors + examples:
        credential = doc["credential"]
        response = credential["response"]
        credential_text = json.dumps(credential, separators=(",", ":"))
        client_data = b64url(response["clientDataJSON"])
        collect_tokens(credential, tokens)
        try:
            collect_tokens(json.loads(client_data), tokens)
        except ValueError:
            pass
        corpus.add("client-data", client_data)
        corpus.add("json", client_data)
        corpus.add("json", credential_text)
        if doc.get("ceremony") == "registration":
            corpus.add("registration", credential_text)
            corpus.add("request-bodies", b"\x01" + json.dumps({"credential": credential}).encode())
            attestation = b64url(response["attestationObject"])
            corpus.add("cbor", attestation)
            when = doc.get("verification_time")
            moment = datetime.datetime.fromisoformat(when.replace("Z", "+00:00")) if when else DEFAULT_TIME
            envelope = int(moment.timestamp()).to_bytes(8, "big") + hashlib.sha256(client_data).digest() + attestation
            corpus.add("attestation", envelope)
            try:
                auth_data = cbor_item(attestation, 0)[0]["authData"]
                corpus.add("authenticator-data", auth_data)
                # The COSE key after the fixed fields: rpIdHash 32, flags 1, count 4, aaguid 16, id length 2.
                id_length = int.from_bytes(auth_data[53:55], "big")
                corpus.add("cbor", auth_data[55 + id_length:])
            except (ValueError, KeyError, IndexError, TypeError):
                pass
            fmt = (doc.get("decoded") or {}).get("fmt")
            for pem in (doc.get("attestation_trust") or {}).get("roots_pem") or []:
                if fmt:
                    anchors.add((fmt, pem.strip() + "\n"))
        else:
            corpus.add("authentication", credential_text)
            corpus.add("request-bodies", b"\x02" + json.dumps({"credential": credential}).encode())
            corpus.add("authenticator-data", b64url(response["authenticatorData"]))
            stored = (doc.get("stored_credential") or {}).get("public_key_cose")
            if stored:
                corpus.add("cbor", b64url(stored))

    # The tests' byte fixtures: CBOR test vectors (hex("…")) and the JSON parser's test documents.
    cbor_tests = os.path.join(ROOT, "Tests", "CBORTests")
    for name in sorted(os.listdir(cbor_tests)):
        for match in re.finditer(r'hex\("([0-9a-fA-F\s]*)"\)', open(os.path.join(cbor_tests, name)).read()):
            corpus.add("cbor", bytes.fromhex("".join(match.group(1).split())))
    for literal in swift_string_literals(os.path.join(ROOT, "Tests", "WebAuthnTests", "JSONValueTests.swift")):
        corpus.add("json", literal.encode("utf-8", "surrogatepass"))

    # Ed448Tests' packed self attestation (made by Python's cryptography): the vectors' Ed448 registrations
    # are signed by an ES256 certificate, so this is the seed whose Ed448 credential key signs its own
    # statement, and mutations of it reach OpenSSL's Ed448 verification (WebAuthn's Ed448PublicKey).
    ed448 = dict(re.findall(r'static let (\w+) =\s*"([A-Za-z0-9_-]+)"',
                            open(os.path.join(ROOT, "Tests", "WebAuthnTests", "Ed448Tests.swift")).read()))
    attestation = b64url(ed448["attestationObject"])
    corpus.add("cbor", attestation)
    corpus.add("attestation", int(DEFAULT_TIME.timestamp()).to_bytes(8, "big")
               + hashlib.sha256(b64url(ed448["registrationClientData"])).digest() + attestation)

    # The other request bodies, in the shapes the web page and the CLI send.
    for selector, body in ((0, {"displayName": "Ada Lovelace"}), (0, {"name": "Laptop"}), (0, {}),
                           (3, {"displayName": "Ada", "credo": "Poetical science\n\tfor all"}), (3, {"credo": None}),
                           (4, {"name": "Phone"})):
        corpus.add("request-bodies", bytes([selector]) + json.dumps(body).encode())

    # libFuzzer dictionaries for the JSON targets: the member names and short string values of the
    # credentials and client data, so mutations speak WebAuthn's JSON rather than only bytes.
    entries = sorted(tokens) + ['"%s"' % t for t in sorted(tokens) if len(t) < 40] + ["{", "}", "[", "]", ":", ",", "null", "true", "false", "\\u0000", "\\ud800\\udc00", "1e400", "-0"]
    with open(os.path.join(out, "json.dict"), "w") as f:
        for entry in entries:
            f.write('"%s"\n' % "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "\\x%02x" % ord(c) for c in entry))

    for index, (fmt, pem) in enumerate(sorted(anchors)):
        directory = os.path.join(out, "anchors", fmt)
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "root-%02d.pem" % index), "w") as f:
            f.write(pem)
    print("seeds: " + ", ".join("%s %d" % item for item in sorted(corpus.counts.items())) + "; anchors: %d" % len(anchors))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
