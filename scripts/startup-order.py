#!/usr/bin/env python3
"""Symbols of BINARY in the order traced runs first touched them, code and data alike.

    scripts/startup-order.py BINARY TRACE...

Each TRACE is the log of `valgrind --tool=lackey --trace-mem=yes BINARY ...`: one line per instruction
fetch (I) and per load, store or modify (L, S, M), with its address. Every address inside BINARY is
mapped to the symbol that contains it (`nm -n`), and each symbol is printed once, at its first touch,
traces taken in the order given. The linker (lld's --symbol-ordering-file) then lays these sections
out side by side, so what a short command runs and writes sits on few pages (scripts/startup-order.sh).
"""
import bisect
import re
import subprocess
import sys

binary, traces = sys.argv[1], sys.argv[2:]
symbols = []
listing = subprocess.run(["nm", "-n", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
for line in listing.splitlines():
    parts = line.split(" ", 2)
    # Code, read-only and writable data, zero-filled data (not absolute or weak-undefined symbols).
    if len(parts) != 3 or parts[1] not in "tTrRdDbB":
        continue
    symbols.append((int(parts[0], 16), parts[2]))
if not symbols:
    sys.exit(f"startup-order: {binary} has no symbols (stripped?)")
starts = [address for address, _ in symbols]
end = starts[-1] + (1 << 20)
access = re.compile(r"^\s*[ILSM]\s+([0-9a-f]+),")
seen, order = set(), []
for path in traces:
    with open(path, errors="replace") as trace:
        for line in trace:
            match = access.match(line)
            if not match:
                continue
            address = int(match.group(1), 16)
            if address < starts[0] or address > end:
                continue
            name = symbols[bisect.bisect_right(starts, address) - 1][1]
            if name not in seen:
                seen.add(name)
                order.append(name)
sys.stdout.write("".join(name + "\n" for name in order))
