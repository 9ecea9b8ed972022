#!/usr/bin/env python3
"""Check schema/manifest.schema.json against the example fleets.

Every manifest given (by default fleets/*.yaml) must validate against the schema, and a set
of deliberately broken snippets must be rejected, so the schema can neither drift away from
the examples nor silently accept anything. Exit status: 0 all good, 1 a check failed,
2 the checker could not run (missing packages, unreadable files).

Needs the `jsonschema` and `PyYAML` packages:
    python3 -m venv .venv && .venv/bin/pip install jsonschema pyyaml
    .venv/bin/python scripts/check-schema.py
"""

import argparse
import copy
import glob
import json
import os
import sys

try:
    import jsonschema
    import yaml
except ImportError as error:
    print(f"check-schema: {error}; install the checker's packages with "
          "`pip install jsonschema pyyaml` (in a virtual environment)", file=sys.stderr)
    sys.exit(2)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The smallest manifest that is valid; each negative case breaks exactly one thing in it,
# so a rejection can only come from that one thing.
MINIMAL = {
    "version": 1,
    "fleet": "schema-check",
    "uuid": "28C6D9D0-CE8A-4A3B-B120-9E68B11E7F6B",
    "defaults": {"measured_power": "auto", "interval_ms": 100, "tx_power": 0, "host": "pi-1"},
    "venues": [{
        "id": "venue-1",
        "major": 1,
        "plan": {"width": 10, "height": 8},
        "beacons": [{
            "id": "beacon-1",
            "minor": 1,
            "measured_power": -59,
            "position": [1.5, 2],
            "mac": "C4:92:D3:8E:BC:BB",
        }],
    }],
    "regions": [{"id": "region-1", "major": 1, "minor": 1}],
}


def beacon(manifest):
    return manifest["venues"][0]["beacons"][0]


def region(manifest):
    return manifest["regions"][0]


# (what is wrong, how to break the minimal manifest)
NEGATIVE_CASES = [
    ("version 2", lambda m: m.update(version=2)),
    ("missing fleet name", lambda m: m.pop("fleet")),
    ("UUID without hyphens", lambda m: m.update(uuid="5A4BCFCE174E4BACA814092E77F6B7E5")),
    ("UUID in braces", lambda m: m.update(uuid="{28C6D9D0-CE8A-4A3B-B120-9E68B11E7F6B}")),
    ("unknown top-level key", lambda m: m.update(venue=[])),
    ("misspelt default", lambda m: m["defaults"].update(interval=100)),
    ("measured power 0 dBm", lambda m: beacon(m).update(measured_power=0)),
    ("measured power -128 dBm", lambda m: beacon(m).update(measured_power=-128)),
    ("measured power as text", lambda m: beacon(m).update(measured_power="automatic")),
    ("measured power as a decimal", lambda m: beacon(m).update(measured_power=-59.5)),
    ("interval below 20 ms", lambda m: beacon(m).update(interval_ms=19)),
    ("interval above 10240 ms", lambda m: beacon(m).update(interval_ms=10241)),
    ("TX power above 20 dBm", lambda m: beacon(m).update(tx_power=21)),
    ("major above 65535", lambda m: m["venues"][0].update(major=65536)),
    ("negative minor", lambda m: beacon(m).update(minor=-1)),
    ("beacon without minor", lambda m: beacon(m).pop("minor")),
    ("beacon without id", lambda m: beacon(m).pop("id")),
    ("unknown beacon key", lambda m: beacon(m).update(power=-59)),
    ("MAC with dashes", lambda m: beacon(m).update(mac="C4-92-D3-8E-BC-BB")),
    ("MAC with five bytes", lambda m: beacon(m).update(mac="C4:92:D3:8E:BC")),
    ("position with three coordinates", lambda m: beacon(m).update(position=[1, 2, 3])),
    ("plan without height", lambda m: m["venues"][0]["plan"].pop("height")),
    ("plan of zero width", lambda m: m["venues"][0]["plan"].update(width=0)),
    ("region minor without major", lambda m: region(m).pop("major")),
    ("region notify flag as text", lambda m: region(m).update(notify_on_exit="yes")),
    ("max beacons per host of 0", lambda m: m.update(max_beacons_per_host=0)),
    ("max beacons per host above 240", lambda m: m.update(max_beacons_per_host=241)),
    ("empty beacon name", lambda m: beacon(m).update(name="")),
    ("newline in a beacon name", lambda m: beacon(m).update(name="two\nlines")),
    ("newline at the end of a beacon id", lambda m: beacon(m).update(id="beacon-1\n")),
    ("NUL in a venue id", lambda m: m["venues"][0].update(id="venue\x001")),
    ("ESC in a zone", lambda m: beacon(m).update(zone="zone\x1b[31m")),
    ("tab in a host", lambda m: m["defaults"].update(host="pi\t1")),
    ("C1 control in the fleet name", lambda m: m.update(fleet="fleet\x85")),
    ("DEL in a region id", lambda m: region(m).update(id="region\x7f")),
]


def describe(error):
    path = "/".join(str(part) for part in error.absolute_path) or "(top level)"
    return f"{path}: {error.message}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("manifests", nargs="*",
                        help="manifests to validate (default: fleets/*.yaml)")
    parser.add_argument("--schema", default=os.path.join(ROOT, "schema", "manifest.schema.json"))
    arguments = parser.parse_args()

    try:
        with open(arguments.schema, encoding="utf-8") as file:
            schema = json.load(file)
    except (OSError, ValueError) as error:
        print(f"check-schema: cannot read the schema {arguments.schema}: {error}", file=sys.stderr)
        return 2
    try:
        jsonschema.Draft7Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        print(f"{arguments.schema}: not a valid draft-07 schema: {error.message}")
        return 1
    validator = jsonschema.Draft7Validator(schema)

    manifests = arguments.manifests or sorted(glob.glob(os.path.join(ROOT, "fleets", "*.yaml")))
    if not manifests:
        print("check-schema: no manifests found under fleets/", file=sys.stderr)
        return 2

    failures = 0
    for path in manifests:
        try:
            with open(path, encoding="utf-8") as file:
                document = yaml.safe_load(file)
        except (OSError, yaml.YAMLError) as error:
            print(f"check-schema: cannot read {path}: {error}", file=sys.stderr)
            return 2
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        for error in errors:
            print(f"{os.path.relpath(path)}: {describe(error)}")
        failures += bool(errors)
        if not errors:
            print(f"ok       {os.path.relpath(path)}")

    minimal_errors = list(validator.iter_errors(MINIMAL))
    for error in minimal_errors:
        print(f"minimal manifest rejected, the negative cases prove nothing: {describe(error)}")
    failures += bool(minimal_errors)

    for what, breaker in NEGATIVE_CASES:
        manifest = copy.deepcopy(MINIMAL)
        breaker(manifest)
        if validator.is_valid(manifest):
            print(f"accepted a manifest with {what}: the schema should reject it")
            failures += 1
        else:
            print(f"rejected {what}")

    if failures:
        print(f"check-schema: {failures} check(s) failed")
        return 1
    print(f"check-schema: {len(manifests)} manifest(s) valid, "
          f"{len(NEGATIVE_CASES)} broken snippets rejected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
