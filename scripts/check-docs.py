#!/usr/bin/env python3
"""The docs checked against what they describe: run by `make check` and `make test`.

1. Every relative link in the Markdown files of the repository (README.md, docs/, the folders' READMEs) points at a
   file or folder that exists, and a link with `#anchor` at a heading of that page (GitHub's anchors).
2. docs/ARCHITECTURE.md has one row per target of Package.swift (`swift package dump-package`), in its table
   "Every target", whose dependency column is exactly what Package.swift declares for it.

`--write` rewrites that table's dependency column (and adds a row for a new target) from Package.swift; the
description column is kept. Exit 0 and one summary line when all holds; otherwise one line per problem and exit 1.
"""
import os
import re
import subprocess
import sys

from package_targets import targets as package_targets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCHITECTURE = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
TABLE_START = "<!-- targets: written by scripts/check-docs.py --write -->"
TABLE_END = "<!-- end of targets -->"
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")


def markdown_files():
    out = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [os.path.join(ROOT, p) for p in out.split() if os.path.exists(os.path.join(ROOT, p))]


def prose_lines(path):
    """(number, line) outside fenced code blocks, with inline code removed."""
    fenced = False
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`[^`]*`", "", line)


def slug(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    seen, found = {}, set()
    fenced = False
    for line in open(path, encoding="utf-8"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"^#{1,6} ", line):
            base = slug(re.sub(r"^#+ ", "", line))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links():
    problems, checked = [], 0
    for path in markdown_files():
        for number, line in prose_lines(path):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue  # http:, https:, mailto:
                checked += 1
                where = f"{os.path.relpath(path, ROOT)}:{number}"
                file_part, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.exists(resolved):
                    problems.append(f"{where}: link to {target}: no such file")
                elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                    problems.append(f"{where}: link to {target}: no heading #{anchor} there")
    return problems, checked


def declared_targets():
    return {name: (kind, sorted(set(deps), key=str.lower)) for name, kind, deps, _ in package_targets()}


def table_rows(text):
    """{target: (kind, [dependencies], description)} from the table between the markers."""
    start, end = text.index(TABLE_START), text.index(TABLE_END)
    rows = {}
    for line in text[start:end].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            deps = [d.strip(" `") for d in cells[2].split(",") if d.strip(" `-")]
            rows[cells[0].strip("`")] = (cells[1], deps, cells[3])
    return rows


def render(targets, rows):
    lines = [TABLE_START, "| Target | Kind | Depends on (as Package.swift declares) | Holds |", "|---|---|---|---|"]
    for name, (kind, deps) in targets.items():
        description = rows.get(name, ("", [], "(describe it)"))[2]
        shown = ", ".join(f"`{d}`" for d in deps) or "-"
        lines.append(f"| `{name}` | {kind} | {shown} | {description} |")
    return "\n".join(lines + [TABLE_END])


def architecture_problems(targets):
    text = open(ARCHITECTURE, encoding="utf-8").read()
    if TABLE_START not in text or TABLE_END not in text:
        return ["docs/ARCHITECTURE.md: no table of every target (run scripts/check-docs.py --write)"]
    rows, problems = table_rows(text), []
    for name, (kind, deps) in targets.items():
        if name not in rows:
            problems.append(f"docs/ARCHITECTURE.md: target {name} is missing (scripts/check-docs.py --write adds it)")
        elif sorted(rows[name][1], key=str.lower) != deps:
            problems.append(f"docs/ARCHITECTURE.md: {name} depends on {', '.join(deps) or 'nothing'} in Package.swift, "
                            f"not {', '.join(rows[name][1]) or 'nothing'} (scripts/check-docs.py --write)")
        elif "(describe it)" in rows[name][2]:
            problems.append(f"docs/ARCHITECTURE.md: {name} has no description")
    problems += [f"docs/ARCHITECTURE.md: {name} is not a target of Package.swift" for name in rows if name not in targets]
    return problems


def main():
    targets = declared_targets()
    if "--write" in sys.argv:
        text = open(ARCHITECTURE, encoding="utf-8").read()
        if TABLE_START in text:
            start, end = text.index(TABLE_START), text.index(TABLE_END) + len(TABLE_END)
            text = text[:start] + render(targets, table_rows(text)) + text[end:]
        else:
            text = text.rstrip() + "\n\n## Every target\n" + render(targets, {}) + "\n"
        open(ARCHITECTURE, "w", encoding="utf-8").write(text)
    links, checked = broken_links()
    problems = links + architecture_problems(targets)
    for line in problems:
        print(f"docs: {line}")
    if problems:
        return 1
    print(f"docs: {checked} links resolve; docs/ARCHITECTURE.md names all {len(targets)} targets with their dependencies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
