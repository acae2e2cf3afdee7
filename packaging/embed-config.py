#!/usr/bin/env python3
"""Writes Config/appliance.toml into Sources/Settings/DefaultConfig.swift (the embedded default).

The file is written as `swift format` leaves it (the string's lines indented under the declaration), and a line
that would pass 120 characters is continued on the next (a raw string's `\\#` at the end of a line joins the two):
the text compiled in stays byte for byte the file's (ConfigTests checks it).
"""
import pathlib

INDENT = " " * 8
WIDTH = 120 - len(INDENT) - len("\\#")

root = pathlib.Path(__file__).resolve().parent.parent
text = (root / "Config/appliance.toml").read_text()
assert '"""#' not in text and "\\#" not in text


def wrapped(line):
    """The line in pieces of at most WIDTH characters, cut before a space where there is one (a piece never ends in
    whitespace, which an editor could strip)."""
    pieces = []
    while len(line) > WIDTH:
        cut = line.rfind(" ", 1, WIDTH)
        cut = WIDTH if cut <= 0 else cut
        pieces.append(line[:cut] + "\\#")
        line = line[cut:]
    return pieces + [line]


body = "".join(INDENT + piece + "\n" if piece else "\n" for line in text.split("\n")[:-1] for piece in wrapped(line))
swift = (
    "/// Config/appliance.toml compiled into the binary, so `appliance run` works with no file at hand.\n"
    "/// Kept identical to the file by a test (ConfigTests); regenerate with `make embed-config`.\n"
    "public enum DefaultConfig {\n"
    '    public static let text = #"""\n' + body + '        """#\n}\n'
)
(root / "Sources/Settings/DefaultConfig.swift").write_text(swift)
print("updated Sources/Settings/DefaultConfig.swift")
