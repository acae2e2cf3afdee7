"""Package.swift's targets as SwiftPM reads them (`swift package dump-package`): shared by the architecture and
docs checks."""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def targets():
    """[(name, type, [dependencies as declared: targets and products by name])], in Package.swift's order."""
    dump = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout
    found = []
    for target in json.loads(dump)["targets"]:
        names = []
        for dependency in target.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    names.append(dependency[kind][0])
        found.append((target["name"], target["type"], names, target.get("path")))
    return found
