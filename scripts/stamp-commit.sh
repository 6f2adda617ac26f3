#!/usr/bin/env bash
# Writes Sources/pbctl/BuildCommit.swift (git-ignored): the commit this tree was built from, for
# `pbctl --version`. Outside a git checkout it writes nothing and pbctl names no commit. The file is
# rewritten only when the commit changes, so it costs no rebuild otherwise.
set -u
cd "$(dirname "$0")/.."
file=Sources/pbctl/BuildCommit.swift
commit=$(git rev-parse --short=12 HEAD 2>/dev/null) || { rm -f "$file"; exit 0; }
git diff --quiet HEAD -- 2>/dev/null || commit="$commit-dirty"
text="extension BuildStamp { static var commit: String? { \"$commit\" } }"
[ "$(cat "$file" 2>/dev/null)" = "$text" ] || printf '%s\n' "$text" > "$file"
