#!/usr/bin/env python3
"""Writes Config/appliance.toml into Sources/Settings/DefaultConfig.swift (the embedded default)."""
import pathlib

root = pathlib.Path(__file__).resolve().parent.parent
text = (root / "Config/appliance.toml").read_text()
assert '"""#' not in text
swift = (
    "/// Config/appliance.toml compiled into the binary, so `appliance run` works with no file at hand.\n"
    "/// Kept identical to the file by a test (ConfigTests); regenerate with `make embed-config`.\n"
    "public enum DefaultConfig {\n"
    '    public static let text = #"""\n' + text + '"""#\n}\n'
)
(root / "Sources/Settings/DefaultConfig.swift").write_text(swift)
print("updated Sources/Settings/DefaultConfig.swift")
