"""The API document's two served forms, made from openapi.yaml: a byte-for-byte copy and the JSON of
the same document. `scripts/openapi-json` runs this; the tests import `expected` to check the committed
files. JSON cannot say everything YAML can (anchors are expanded, keys must be strings), which is fine:
openapi.yaml is plain OpenAPI."""
import json
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[3]
SOURCE = ROOT / "openapi.yaml"
PUBLIC = ROOT / "Sources" / "LatchkeyServer" / "Public"


def expected():
    """{path: bytes} of the files openapi.yaml gives."""
    text = SOURCE.read_bytes()
    document = yaml.safe_load(text)
    as_json = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return {PUBLIC / "openapi.yaml": text, PUBLIC / "openapi.json": as_json.encode()}


def main(arguments):
    stale = [path for path, content in expected().items() if not path.exists() or path.read_bytes() != content]
    if "--check" in arguments:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is not what openapi.yaml gives: run scripts/openapi-json", file=sys.stderr)
        return 1 if stale else 0
    for path, content in expected().items():
        path.write_bytes(content)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
