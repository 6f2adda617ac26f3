#!/usr/bin/env bash
# Rich-text conversion throughput: Markdown → RTF, RTF → Markdown and HTML → Markdown (plus Markdown → HTML,
# Markdown → Markdown and Markdown → plain text for reference), measured in-process on one large input,
# with cmark and pandoc timed in the same run on the same machine.
#
# Usage: scripts/bench-richtext.sh [INPUT.md] [-o OUTPUT.md]
#   INPUT.md   Markdown input (default: $BENCH_INPUT, else an ~8 MB file made of the CommonMark spec and the
#              rich-text fixture, repeated).
#   -o FILE    also write the Markdown section to FILE (`make bench` puts it into docs/benchmarks.md).
# Prints a Markdown section ("## Rich text conversions") to stdout.
#
# The driver is pbctl-bench's `richtext` mode (Benchmarks/pbctl-bench). Tools used when present: cmark, pandoc.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
input="${BENCH_INPUT:-}"
output=""
while [ $# -gt 0 ]; do
    case "$1" in
        -o) output="$2"; shift 2 ;;
        *) input="$1"; shift ;;
    esac
done

work="${TMPDIR:-/tmp}/pbctl-richtext-bench-$(id -u)"
mkdir -p "$work"
# The driver is pbctl-bench's `richtext` mode (Benchmarks/pbctl-bench): PBCTL_BENCH names a built one
# (make bench passes its release build), else it is built here.
bench="${PBCTL_BENCH:-}"
if [ -z "$bench" ]; then
    echo "building the benchmark driver (release)…" >&2
    (cd "$repo" && swift build -c release --scratch-path "$work/build" --product pbctl-bench >&2)
    bench="$(cd "$repo" && swift build -c release --scratch-path "$work/build" --show-bin-path)/pbctl-bench"
fi

if [ -z "$input" ]; then
    input="$work/input.md"
    if [ ! -s "$input" ]; then
        python3 - "$repo" "$input" <<'EOF'
import sys, os
repo, out = sys.argv[1], sys.argv[2]
parts = [open(os.path.join(repo, p), encoding="utf-8").read() for p in (
    "Tests/SpecConformanceTests/Specs/commonmark-0.31.2-spec.txt",
    "Tests/RepresentationsTests/Fixtures/RichText/constructs.md")]
text = ""
while len(text.encode()) < 8_000_000:
    text += "\n\n".join(parts) + "\n\n"
open(out, "w", encoding="utf-8").write(text)
EOF
    fi
fi
bytes=$(wc -c < "$input")
echo "input: $input ($bytes bytes)" >&2

results="$work/results.tsv"
"$bench" richtext "$input" "$work/input.rtf" "$work/input.html" > "$results"

# External tools, timed the same way (best of 3 wall-clock runs of the whole process).
best_of() {  # best_of N command… → seconds
    local n=$1; shift
    python3 - "$n" "$@" <<'EOF'
import subprocess, sys, time
n = int(sys.argv[1]); cmd = sys.argv[2:]
best = float("inf")
for _ in range(n):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    best = min(best, time.perf_counter() - t)
print(best)
EOF
}
external="$work/external.tsv"
: > "$external"
if command -v cmark >/dev/null; then
    echo -e "cmark md-html\t$bytes\t$(best_of 3 cmark "$input")" >> "$external"
fi
if command -v pandoc >/dev/null; then
    # pandoc is far slower: time it on the first megabyte (same content), per direction.
    head -c 1000000 "$input" > "$work/slice.md"
    "$bench" richtext "$work/slice.md" "$work/slice.rtf" "$work/slice.html" > /dev/null
    echo -e "pandoc md-rtf\t$(wc -c < "$work/slice.md")\t$(best_of 1 pandoc -f gfm -t rtf -s "$work/slice.md")" >> "$external"
    echo -e "pandoc rtf-md\t$(wc -c < "$work/slice.rtf")\t$(best_of 1 pandoc -f rtf -t gfm "$work/slice.rtf")" >> "$external"
    echo -e "pandoc html-md\t$(wc -c < "$work/slice.html")\t$(best_of 1 pandoc -f html -t gfm "$work/slice.html")" >> "$external"
fi

section=$(python3 - "$results" "$external" "$bytes" <<'EOF'
import sys, platform, os
results, external, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = {
    "md-rtf": "Markdown → RTF (parse + write)", "rtf-md": "RTF → Markdown (read + write)",
    "html-md": "HTML → Markdown (read + write)", "md-html": "Markdown → HTML", "md-md": "Markdown → Markdown",
    "md-text": "Markdown → plain text", "rtf-write": "RTF writer alone (AST ready)", "rtf-read": "RTF reader alone (to AST)",
    "html-read": "HTML reader alone (to AST)",
    "html-read-keep": "HTML reader alone, keeping raw HTML (--keep-html)",
}
rows = []
for line in open(results):
    name, n, secs, _ = line.rstrip("\n").split("\t")
    n, secs = int(n), float(secs)
    rows.append((names.get(name, name), n, secs, "pbctl (in-process, best of 5)"))
for line in open(external):
    name, n, secs = line.rstrip("\n").split("\t")
    n, secs = int(n), float(secs)
    tool, direction = name.split(" ", 1)
    label = {"md-html": "Markdown → HTML", "md-rtf": "Markdown → RTF", "rtf-md": "RTF → Markdown", "html-md": "HTML → Markdown"}[direction]
    rows.append((label, n, secs, f"{tool} (whole process, best of {3 if tool == 'cmark' else 1})"))
print("## Rich text conversions\n")
print(f"Input: {size:,} bytes of Markdown (RTF and HTML inputs are our own renderings of it). "
      f"Machine: {platform.machine()}, {os.cpu_count()} CPUs. MB = 10^6 bytes.\n")
print("| conversion | implementation | input bytes | time | throughput |")
print("|---|---|---:|---:|---:|")
for label, n, secs, impl in rows:
    print(f"| {label} | {impl} | {n:,} | {secs*1000:.1f} ms | {n/secs/1e6:.1f} MB/s |")
EOF
)
echo "$section"
if [ -n "$output" ]; then
    mkdir -p "$(dirname "$output")"
    printf '%s\n' "$section" > "$output"
fi
