"""The schema versions the current source declares: each `version: N` of the migrations, one file per version
under Sources/LatchkeyServer/Storage/Migrations/ (`MigrationNN.swift`). They need not be contiguous, as
branches reserve numbers. The upgrade, cluster and package tests compare databases against them."""
import pathlib
import re

MIGRATIONS = pathlib.Path(__file__).resolve().parents[3] / "Sources/LatchkeyServer/Storage/Migrations"


def declared_versions():
    """Every schema version the source declares, in order."""
    versions = []
    for path in sorted(MIGRATIONS.glob("Migration*.swift")):
        versions += [int(number) for number in re.findall(r"^\s*version: (\d+),$", path.read_text(), re.M)]
    assert versions, f"no `version: N` under {MIGRATIONS}"
    return sorted(versions)
