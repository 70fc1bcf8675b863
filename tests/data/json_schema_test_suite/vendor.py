"""Vendor the JSON-Schema-Test-Suite cases the strategies are judged on (not part of the suite).

Run from a checkout of https://github.com/json-schema-org/JSON-Schema-Test-Suite (MIT licence,
copied beside this file as LICENSE)::

    python tests/data/json_schema_test_suite/vendor.py /path/to/JSON-Schema-Test-Suite COMMIT

It writes ``cases.json``: every case group of the Draft 2020-12 keyword files (not ``optional/``,
and not the files that need remote documents or vocabularies), plus draft-07's ``dependencies``
and draft-04's ``ref`` (draft-04 ``id``), each of those given its draft's ``$schema``, as
``{"source": ..., "commit": ..., "files": {"draft2020-12/contains.json": [group, ...]}}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

LEFT_OUT = {"refRemote.json", "vocabulary.json"}  # remote documents and custom metaschemas
OLDER = ["draft7/dependencies.json", "draft4/ref.json"]
# The suite says an older file's draft by its folder; a Tool reads it from `$schema`.
DIALECTS = {
    "draft7": "http://json-schema.org/draft-07/schema#",
    "draft4": "http://json-schema.org/draft-04/schema#",
}


def main(checkout: Path, commit: str) -> None:
    tests = checkout / "tests"
    names = [
        f"draft2020-12/{path.name}"
        for path in sorted((tests / "draft2020-12").glob("*.json"))
        if path.name not in LEFT_OUT
    ]
    files = {name: json.loads((tests / name).read_text()) for name in [*names, *OLDER]}
    for name in OLDER:
        for group in files[name]:
            schema = group["schema"]
            if isinstance(schema, dict) and "$schema" not in schema:
                group["schema"] = {"$schema": DIALECTS[name.split("/")[0]], **schema}
    out = {
        "source": "https://github.com/json-schema-org/JSON-Schema-Test-Suite",
        "commit": commit,
        "licence": "MIT, see LICENSE beside this file",
        "files": files,
    }
    target = Path(__file__).with_name("cases.json")
    target.write_text(json.dumps(out, separators=(",", ":"), sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
