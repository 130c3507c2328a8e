"""scripts/refresh-aaguids: the shipped provider table passes its checks, and a list that would break the
table (retired, malformed, an icon that is not SVG) is refused without touching the table."""
import base64
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "refresh-aaguids"
SVG = "data:image/svg+xml;base64," + base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>').decode()


def run(*arguments):
    return subprocess.run([sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True)


def a_list(count=30, **extra):
    table = {f"{i:08x}-0000-4000-8000-{i:012x}": {"name": f"Provider {i}", "icon_light": SVG} for i in range(count)}
    table.update(extra)
    return table


def test_the_shipped_table_passes_every_check():
    result = run("--check")
    assert result.returncode == 0, result.stderr
    assert "providers, every entry checked" in result.stdout


def test_a_good_list_is_written_byte_for_byte(tmp_path):
    source = tmp_path / "upstream.json"
    source.write_bytes(json.dumps(a_list(), indent=4).encode())
    output = tmp_path / "aaguid.json"
    result = run("--from", str(source), "--output", str(output))
    assert result.returncode == 0, result.stderr
    assert output.read_bytes() == source.read_bytes()


def test_a_bad_list_is_refused_and_the_table_kept(tmp_path):
    output = tmp_path / "aaguid.json"
    output.write_text("kept")
    not_svg = "data:image/svg+xml;base64," + base64.b64encode(b"<html><script>alert(1)</script></html>").decode()
    cases = {
        "empty object": ({}, "empty object"),
        "array": ([], "not a JSON object"),
        "too short": (a_list(3), "only 3 entries"),
        "upper-case key": (a_list(**{"FBFC3007-154E-4ECC-8C0B-6E020557D7BD": {"name": "x"}}), "not a lowercase UUID"),
        "no name": (a_list(**{"fbfc3007-154e-4ecc-8c0b-6e020557d7bd": {"name": " "}}), "has no name"),
        "remote icon": (a_list(**{"fbfc3007-154e-4ecc-8c0b-6e020557d7bd": {"name": "x", "icon_dark": "https://example.com/a.svg"}}), "icon_dark"),
        "bad base64": (a_list(**{"fbfc3007-154e-4ecc-8c0b-6e020557d7bd": {"name": "x", "icon_light": "data:image/svg+xml;base64,@@"}}), "does not decode"),
        "not svg": (a_list(**{"fbfc3007-154e-4ecc-8c0b-6e020557d7bd": {"name": "x", "icon_light": not_svg}}), "not <svg>"),
    }
    for label, (table, reason) in cases.items():
        source = tmp_path / f"{label}.json"
        source.write_text(json.dumps(table))
        result = run("--from", str(source), "--output", str(output))
        assert result.returncode == 1, label
        assert reason in result.stderr, (label, result.stderr)
        assert output.read_text() == "kept", label
