#!/usr/bin/env python3
"""Markdown → HTML with two pbctl binaries, interleaved: CPU time (user + system, whole process) and peak
memory, before a change and after it. Used by `make bench` section `baseline` (scripts/bench.sh, with
BENCH_BASELINE=REV or BENCH_BASELINE_BINARY=PATH) to show that a restructuring left the engine's speed and
memory as they were. CPU time rather than wall time: it is what the change can alter, and it holds on a
machine shared with other work (both binaries run alternately, so a load hits both alike).

usage: bench-before-after.py BEFORE-BINARY BEFORE-LABEL AFTER-BINARY AFTER-LABEL INPUT-LABEL=FILE...
"""
import resource
import statistics
import subprocess
import sys

RUNS = 15
# A process that converts nothing runs for about a millisecond, below the kernel's CPU-time accounting
# granularity for one process: many runs, and their mean, which the rounding does not bias.
SMALL_RUNS = 400


def cpu_and_peak(binary, dialect, path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary, "convert", "--from", dialect, "--to", "html", path], stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def peak_kb(binary, dialect, path):
    result = subprocess.run(["/usr/bin/time", "-f", "%M", binary, "convert", "--from", dialect, "--to", "html", path],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    return int(result.stderr.strip().splitlines()[-1])


def main():
    old, old_label, new, new_label = sys.argv[1:5]
    inputs = [arg.split("=", 1) for arg in sys.argv[5:]] + [["an empty file", "/dev/null"]]
    print(f"| input | dialect | {old_label}: CPU ms | {new_label}: CPU ms | after ÷ before | "
          f"peak before | peak after |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, path in inputs:
        for dialect in ("gfm", "commonmark"):
            small = path == "/dev/null"
            times = {old: [], new: []}
            for _ in range(SMALL_RUNS if small else RUNS):
                for binary in (old, new):
                    times[binary].append(cpu_and_peak(binary, dialect, path))
            average = statistics.mean if small else statistics.median
            before, after = average(times[old]) * 1000, average(times[new]) * 1000
            identical = subprocess.run([old, "convert", "--from", dialect, "--to", "html", path], capture_output=True).stdout == \
                subprocess.run([new, "convert", "--from", dialect, "--to", "html", path], capture_output=True).stdout
            print(f"| {label}{f' (mean of {SMALL_RUNS})' if small else f' (median of {RUNS})'} | {dialect} | {before:.2f} | {after:.2f} | **{after / before:.3f}** | "
                  f"{peak_kb(old, dialect, path) / 1024:.1f} MiB | {peak_kb(new, dialect, path) / 1024:.1f} MiB |"
                  + ("" if identical else " OUTPUT DIFFERS |"))


main()
