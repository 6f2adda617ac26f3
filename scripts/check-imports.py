#!/usr/bin/env python3
"""The manifest's dependency lists are the allowed imports: a target may import another of this
package's targets only if Package.swift names it among its dependencies (SwiftPM itself lets a target
import any module it happens to build first). Run by scripts/check-source.sh; prints each violation as
FILE: imports MODULE, which TARGET does not depend on."""
import json
import os
import re
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
env = dict(os.environ, PBCTL_FUZZ="1")  # the fuzz harness target too
manifest = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, env=env, capture_output=True, text=True, check=True).stdout)
targets = {t["name"]: t for t in manifest["targets"]}
pattern = re.compile(r"^\s*(?:@testable\s+|@_implementationOnly\s+|internal\s+|public\s+|package\s+)*import\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
problems = []
for name, target in targets.items():
    declared = set()
    for dependency in target["dependencies"]:
        for kind, value in dependency.items():
            declared.add(value[0])
    folder = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", name)
    imported = set()
    for directory, _, files in os.walk(os.path.join(root, folder)):
        for file in files:
            if not file.endswith(".swift"):
                continue
            path = os.path.join(directory, file)
            with open(path, encoding="utf-8") as handle:
                for module in pattern.findall(handle.read()):
                    imported.add(module)
                    if module in targets and module != name and module not in declared:
                        problems.append(f"{os.path.relpath(path, root)}: imports {module}, which {name} does not depend on (Package.swift)")
    # Nor does the manifest say more than the code: a dependency a source target never imports is a
    # boundary nobody holds (test targets may name what their helpers need).
    if target["type"] in ("regular", "executable") and os.path.isdir(os.path.join(root, folder)):
        for dependency in sorted(declared - imported):
            if dependency in targets:
                problems.append(f"Package.swift: {name} depends on {dependency} but never imports it")
for line in sorted(set(problems)):
    print(line)
sys.exit(1 if problems else 0)
