#!/usr/bin/env python3
"""The module edges the build alone cannot keep: run by `make check` and `make test`.

The build refuses an import that Package.swift does not declare (--explicit-target-dependency-import-check), but a
new line in Package.swift would let an edge back in. These are the edges docs/ARCHITECTURE.md says must not exist,
checked on the package as SwiftPM reads it (`swift package dump-package`), transitively: a module that reaches a
forbidden one through another breaks the rule as much as one that names it.

Inside a module, its folders must not use each other in a cycle either (a type declared at the top level of a
folder and named in another folder's code is an edge; files at the module's root are shared by all).

Exit 0 and one summary line when every rule holds; otherwise one line per broken rule and exit 1.
"""
import collections
import os
import re
import sys

from package_targets import targets as package_targets

# (module, what it must never reach, why)
FORBIDDEN = [
    ("Engine", "Backup", "the engine announces finished and deleted recordings through RecordingArchive"),
    ("ApplianceWeb", "Engine", "the web reaches the live graph only through FrontEndInterface's protocols"),
    ("ApplianceWeb", "GStreamerKit", "the web front end builds without GStreamer"),
    ("ApplianceWeb", "CGStreamer", "the web front end builds without GStreamer"),
    ("MQTTIntegration", "Engine", "MQTT speaks the typed commands and events only"),
    ("ControlSocket", "Engine", "the control socket is a front end: typed commands and events only"),
    ("Supervision", "Engine", "supervision reads the graph's counters through a closure"),
]

# Module names that must not come back (what each became).
RETIRED = {"ApplianceCore": "ApplianceApp (the composition root), Encoders, Diagnostics and MQTTIntegration"}


def reach(graph, start):
    seen, stack = set(), [start]
    while stack:
        for name in graph.get(stack.pop(), []):
            if name not in seen:
                seen.add(name)
                stack.append(name)
    return seen


DECLARATION = re.compile(
    r"^(?:@\w+ )*(?:public |package |private |fileprivate |internal |final |indirect )*"
    r"(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)", re.M)


def folder_edges(module_root):
    """{folder: {folder it uses: {type names}}} for the Swift folders directly under module_root."""
    files = collections.defaultdict(list)
    for directory, _, names in os.walk(module_root):
        folder = os.path.relpath(directory, module_root).split(os.sep)[0]
        if folder == ".":
            continue
        files[folder] += [os.path.join(directory, n) for n in names if n.endswith(".swift")]
    owner = {}
    for folder, paths in files.items():
        for path in paths:
            for match in DECLARATION.finditer(open(path, encoding="utf-8").read()):
                owner.setdefault(match.group(1), folder)
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for folder, paths in files.items():
        for path in paths:
            code = re.sub(r"//.*", "", open(path, encoding="utf-8").read())
            for word in set(re.findall(r"\b[A-Z][A-Za-z0-9_]*\b", code)):
                used = owner.get(word)
                if used and used != folder:
                    edges[folder][used].add(word)
    return edges


def cycles(edges):
    """Strongly connected components of more than one folder (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in edges.get(node, {}):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(edges):
        if node not in index:
            visit(node)
    return found


def folder_cycles(targets):
    broken = []
    for name, target in sorted(targets.items()):
        root = target.get("path") or os.path.join("Sources", name)
        if not os.path.isdir(root):
            continue
        edges = folder_edges(root)
        for component in cycles(edges):
            used = "; ".join(f"{a} uses {b} ({', '.join(sorted(edges[a][b])[:3])})"
                             for a in component for b in component if b in edges.get(a, {}))
            broken.append(f"{name}: its folders {', '.join(component)} use each other in a cycle: {used}")
    return broken


def main():
    declared = package_targets()
    targets = {name: {"type": kind, "path": path} for name, kind, _, path in declared}
    graph = {name: [d for d in deps if d in targets] for name, _, deps, _ in declared}
    broken = []
    for module, forbidden, why in FORBIDDEN:
        if module not in targets:
            broken.append(f"{module}: no such target (the rule names a module Package.swift no longer has)")
        elif forbidden in reach(graph, module):
            broken.append(f"{module} reaches {forbidden}, which it must not: {why}")
    broken += [f"{old}: a target by that name is back; it became {new}" for old, new in RETIRED.items() if old in targets]
    broken += folder_cycles({n: t for n, t in targets.items() if t["type"] in ("regular", "executable")})
    for line in broken:
        print(f"architecture: {line}")
    if broken:
        return 1
    print(f"architecture: {len(FORBIDDEN)} forbidden edges absent over {len(targets)} targets; no module's folders in a cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
