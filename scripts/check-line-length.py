#!/usr/bin/env python3
"""No Swift line of the repository's over 120 characters (make check, make test): swift format wraps code, but not
a string or a comment. A long text is written as a multi-line literal whose lines end in the line continuation
(a backslash, `\\#` in a raw string), which adds nothing to it."""
import subprocess
import sys

LIMIT = 120
files = subprocess.run(["git", "ls-files", "*.swift"], capture_output=True, text=True, check=True).stdout.split()
long = [(path, number, len(line.rstrip("\n")))
        for path in files for number, line in enumerate(open(path, encoding="utf-8"), 1)
        if len(line.rstrip("\n")) > LIMIT]
for path, number, length in long:
    print(f"{path}:{number}: {length} characters (at most {LIMIT})")
if long:
    sys.exit(1)
print(f"line length: no line over {LIMIT} characters in {len(files)} Swift files")
