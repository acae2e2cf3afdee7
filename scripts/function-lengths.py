#!/usr/bin/env python3
"""Lists Swift functions, initialisers and closures-as-properties longer than a limit, longest first.

    python3 scripts/function-lengths.py [--over 60] [paths…]   (default: Sources)

A function's length is the count of lines from its declaration to its closing brace. Braces inside strings and
comments are skipped, so string interpolation and `{` in comments do not confuse it.
"""
import argparse
import os
import re
import sys

DECL = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|static|class|"
                  r"override|mutating|nonisolated|final|required|convenience|isolated|@\w+)\s+)*"
                  r"(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b|(?:var|let)\s+\w+\s*:[^=]*\{\s*$)")


def code_only(line, state):
    """The line with string literals and comments blanked; state carries block comments and multi-line strings."""
    out, i = [], 0
    while i < len(line):
        if state["block"]:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out)
            state["block"], i = False, end + 2
            continue
        if state["multi"]:
            end = line.find('"""', i)
            if end < 0:
                return "".join(out)
            state["multi"], i = False, end + 3
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"], i = True, i + 2
            continue
        if line.startswith('"""', i):
            state["multi"], i = True, i + 3
            continue
        if line[i] == '"':
            i += 1
            depth = 0
            while i < len(line):
                if line[i] == "\\" and line.startswith("\\(", i):
                    depth += 1
                    i += 2
                    continue
                if depth and line[i] == "(":
                    depth += 1
                elif depth and line[i] == ")":
                    depth -= 1
                elif not depth and line[i] == "\\":
                    i += 1
                elif not depth and line[i] == '"':
                    break
                i += 1
            i += 1
            continue
        out.append(line[i])
        i += 1
    return "".join(out)


def functions(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    state = {"block": False, "multi": False}
    stack, found, depth = [], [], 0
    for number, raw in enumerate(lines, 1):
        code = code_only(raw, state)
        match = DECL.match(code)
        if match and "{" in code:
            stack.append((depth, number, match.group(1).strip()))
        elif match and not code.rstrip().endswith(")") and "{" not in code:
            # Declaration continues on the next lines; its body opens later.
            stack.append((depth, number, match.group(1).strip()))
        for ch in code:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                while stack and stack[-1][0] == depth:
                    start_depth, start, name = stack.pop()
                    found.append((number - start + 1, path, start, name))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--over", type=int, default=60)
    parser.add_argument("paths", nargs="*", default=["Sources"])
    args = parser.parse_args()
    everything = []
    for root in args.paths:
        for directory, _, names in os.walk(root):
            for name in names:
                if name.endswith(".swift"):
                    everything += functions(os.path.join(directory, name))
    long = sorted((f for f in everything if f[0] > args.over), reverse=True)
    for length, path, start, name in long:
        print(f"{length:4d}  {path}:{start}  {name}")
    print(f"{len(long)} over {args.over} lines; longest {long[0][0] if long else 0}", file=sys.stderr)


if __name__ == "__main__":
    main()
