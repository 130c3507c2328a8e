"""Writes fixtures.json for QRCodeTests: QR code symbols made by python-qrcode (PyPI `qrcode`), another
encoder, for Latchkey's to be compared with module for module — every version Latchkey makes (1–10) at every
level, and all eight masks of versions 1, 2 and 7 — and, for each input, the version and mask python-qrcode
chooses itself. (segno was tried first: it writes a 0x00 byte where the standard pads with 0xEC after a
byte-aligned terminator, which decodes the same but is not the standard's bit stream.)

Run from the repository: python3 -m venv /tmp/qr && /tmp/qr/bin/pip install qrcode==8.2 &&
/tmp/qr/bin/python Tests/QRCodeTests/make-fixtures.py"""
import json
import pathlib

import qrcode
from qrcode import constants, util

LEVELS = {"L": constants.ERROR_CORRECT_L, "M": constants.ERROR_CORRECT_M, "Q": constants.ERROR_CORRECT_Q,
          "H": constants.ERROR_CORRECT_H}
NAMES = {"L": "low", "M": "medium", "Q": "quartile", "H": "high"}
# Capacity in bytes (byte mode) of versions 1-10 per level, ISO/IEC 18004 Table 7.
CAPACITY = {
    "L": [17, 32, 53, 78, 106, 134, 154, 192, 230, 271],
    "M": [14, 26, 42, 62, 84, 106, 122, 152, 180, 213],
    "Q": [11, 20, 32, 46, 60, 74, 86, 108, 130, 151],
    "H": [7, 14, 24, 34, 44, 58, 64, 84, 98, 119],
}


def text_of(length, seed):
    """A sign-in address, repeated and cut to `length` bytes, varied by `seed`; a non-ASCII letter in it."""
    base = f"https://id.example.com/device?user_code=WDJB-MJHT&n={seed}&é"
    return (base * (length // len(base) + 2)).encode("utf-8")[:length]


def symbol(data, level, version=None, mask=None):
    code = qrcode.QRCode(version=version, error_correction=LEVELS[level], mask_pattern=mask, border=0)
    code.add_data(util.QRData(data, mode=util.MODE_8BIT_BYTE))
    code.make(fit=version is None)
    return code


def packed(row):
    """A row's modules as hex, eight to a byte, the first in the top bit, the last byte padded with 0s."""
    bits = "".join("1" if module else "0" for module in row)
    bits += "0" * (-len(bits) % 8)
    return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8)).hex()


def case(data, level, version, mask):
    fixed = symbol(data, level, version, mask)
    chosen = symbol(data, level)
    return {
        "bytes": data.hex(), "level": NAMES[level], "version": version, "mask": mask,
        "rows": [packed(row) for row in fixed.modules],
        "chosenVersion": chosen.version, "chosenMask": chosen.mask_pattern if chosen.mask_pattern is not None else chosen.best_mask_pattern(),
    }


cases = []
for level in "LMQH":
    for version in range(1, 11):
        # Full, and one byte more than the version below holds (the smallest that needs this version).
        smallest = CAPACITY[level][version - 2] + 1 if version > 1 else 1
        for length, seed in sorted({(CAPACITY[level][version - 1], version), (smallest, version + 40)}):
            data = text_of(length, seed)
            cases.append(case(data, level, version, (version * 3 + len(data)) % 8))
    for version in (1, 2, 7):
        for mask in range(8):
            cases.append(case(text_of(CAPACITY[level][version - 1] - 3, mask), level, version, mask))

out = pathlib.Path(__file__).with_name("fixtures.json")
out.write_text(json.dumps({"encoder": f"python-qrcode {qrcode.__version__ if hasattr(qrcode, '__version__') else '8.2'}", "cases": cases},
                          separators=(",", ":")) + "\n")
print(f"{len(cases)} symbols written to {out}")
