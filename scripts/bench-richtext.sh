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
# The driver is built in a scratch package holding a copy of this checkout's Sources/Pasteboard and
# Sources/Representations, so no Package.swift change is needed. Tools used when present: cmark, pandoc.
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
mkdir -p "$work/Sources/richtext-bench"
# A copy (timestamps kept, so rebuilds are incremental) rather than links: others may edit the tree mid-build.
for target in Pasteboard Representations; do
    rm -rf "$work/Sources/$target"
    cp -a "$repo/Sources/$target" "$work/Sources/$target"
done
cat > "$work/Package.swift" <<'EOF'
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "richtext-bench",
    targets: [
        .target(name: "Pasteboard"),
        .target(name: "Representations", dependencies: ["Pasteboard"]),
        .executableTarget(name: "richtext-bench", dependencies: ["Representations"]),
    ]
)
EOF
cat > "$work/Sources/richtext-bench/main.swift" <<'EOF'
import Foundation
import Representations

// Usage: richtext-bench INPUT.md RTF_OUT HTML_OUT
// Writes the RTF and HTML it converts from (so external tools read the same bytes), then prints one
// tab-separated line per measurement: name, input bytes, best seconds of 5 runs.
let args = CommandLine.arguments
let md = [UInt8](try Data(contentsOf: URL(fileURLWithPath: args[1])))
let document = MarkdownParser.parse(md, options: .gfm)
let rtf = RTFWriter.render(document)
let html = HTMLWriter.render(document, options: .gfm)
try Data(rtf).write(to: URL(fileURLWithPath: args[2]))
try Data(html).write(to: URL(fileURLWithPath: args[3]))

func measure(_ name: String, _ bytes: Int, _ body: () throws -> Int) rethrows {
    var best = Double.infinity
    var sink = 0
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        sink &+= try body()
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    print("\(name)\t\(bytes)\t\(best)\t\(sink & 1)")
}
try measure("md-rtf", md.count) { try Conversion.convert(md, from: .gfm, to: .rtf).count }
try measure("rtf-md", rtf.count) { try Conversion.convert(rtf, from: .rtf, to: .gfm).count }
try measure("html-md", html.count) { try Conversion.convert(html, from: .html, to: .gfm).count }
try measure("md-html", md.count) { try Conversion.convert(md, from: .gfm, to: .html).count }
try measure("md-md", md.count) { try Conversion.convert(md, from: .gfm, to: .gfm).count }
try measure("md-text", md.count) { try Conversion.convert(md, from: .gfm, to: .text).count }
try measure("rtf-write", md.count) { RTFWriter.render(document).count }
try measure("rtf-read", rtf.count) { try Conversion.read(rtf, from: .rtf).nodeCount }
try measure("html-read", html.count) { try Conversion.read(html, from: .html).nodeCount }
try measure("html-read-keep", html.count) { try Conversion.read(html, from: .html, keepRawHTML: true).nodeCount }
EOF

echo "building the benchmark driver (release)…" >&2
(cd "$work" && swift build -c release --product richtext-bench >&2)
bench="$work/.build/release/richtext-bench"

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
"$bench" "$input" "$work/input.rtf" "$work/input.html" > "$results"

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
    "$bench" "$work/slice.md" "$work/slice.rtf" "$work/slice.html" > /dev/null
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
