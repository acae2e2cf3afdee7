#!/usr/bin/env python3
"""The module edges the build alone cannot keep: run by `make check` and `make test`.

The build refuses an import that Package.swift does not declare (--explicit-target-dependency-import-check), but a
new line in Package.swift would let an edge back in. These are the edges docs/ARCHITECTURE.md says must not exist,
checked on the package as SwiftPM reads it (`swift package dump-package`), transitively: a module that reaches a
forbidden one through another breaks the rule as much as one that names it.

Exit 0 and one summary line when every rule holds; otherwise one line per broken rule and exit 1.
"""
import json
import subprocess
import sys

# (module, what it must never reach, why)
FORBIDDEN = [
    ("Engine", "Backup", "the engine announces finished and deleted recordings through RecordingArchive"),
    ("ApplianceWeb", "Engine", "the web reaches the live graph only through FrontEndInterface's protocols"),
    ("ApplianceWeb", "GStreamerKit", "the web front end builds without GStreamer"),
    ("ApplianceWeb", "CGStreamer", "the web front end builds without GStreamer"),
]


def package():
    out = subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def direct_dependencies(target):
    names = []
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target"):
            if kind in dependency:
                names.append(dependency[kind][0])
    return names


def reach(graph, start):
    seen, stack = set(), [start]
    while stack:
        for name in graph.get(stack.pop(), []):
            if name not in seen:
                seen.add(name)
                stack.append(name)
    return seen


def main():
    targets = {t["name"]: t for t in package()["targets"]}
    graph = {name: [d for d in direct_dependencies(t) if d in targets] for name, t in targets.items()}
    broken = []
    for module, forbidden, why in FORBIDDEN:
        if module not in targets:
            broken.append(f"{module}: no such target (the rule names a module Package.swift no longer has)")
        elif forbidden in reach(graph, module):
            broken.append(f"{module} reaches {forbidden}, which it must not: {why}")
    for line in broken:
        print(f"architecture: {line}")
    if broken:
        return 1
    print(f"architecture: {len(FORBIDDEN)} forbidden edges absent over {len(targets)} targets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
