#!/usr/bin/env bash
# `make bench` driver: builds release binaries and writes docs/benchmarks.md.
#
# Usage: scripts/bench.sh [-o OUTPUT.md]          (default output: docs/benchmarks.md)
# Environment:
#   BENCH_SECTIONS   space-separated section names to run, in order
#                    (default: "markdown richtext x11 wayland store images ssh"; a section whose script is missing is skipped)
#   BENCH_SCRATCH    SwiftPM scratch path for the release build (default: .build-bench)
#   BENCH_RUNS       hyperfine runs per command (default 10)
#
# Adding a section: write a function `section_<name>` that prints a Markdown section (starting with
# "## …") to stdout, and add <name> to the default BENCH_SECTIONS below. Each section runs on its own;
# a failing section is reported in the file instead of aborting the others.
#
# Tools: swift, hyperfine, python3, cmark, cmark-gfm (Debian packages). Nothing is downloaded: the
# inputs are the CommonMark spec vendored in Tests/SpecConformanceTests/Specs and, when installed,
# the Markdown documentation of the Debian package nodejs-doc (/usr/share/doc/nodejs).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out="$repo/docs/benchmarks.md"
while [ $# -gt 0 ]; do
    case "$1" in
        -o) out="$2"; shift 2 ;;
        *) echo "usage: $0 [-o OUTPUT.md]" >&2; exit 2 ;;
    esac
done
sections="${BENCH_SECTIONS:-markdown richtext x11 wayland store images ssh}"
scratch="${BENCH_SCRATCH:-$repo/.build-bench}"
runs="${BENCH_RUNS:-10}"
work=$(mktemp -d "${TMPDIR:-/tmp}/pbctl-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

need() { command -v "$1" >/dev/null 2>&1 || { echo "bench: $1 not found (make bench installs it)" >&2; exit 1; }; }

# The release flags of `make release` (Makefile RELEASE_FLAGS), so the pbctl measured is the one installed.
release_flags=(${BENCH_RELEASE_FLAGS:--c release --static-swift-stdlib -Xswiftc -static-executable -Xlinker -lXau -Xlinker -lXdmcp})
built=""
build_release() {
    [ -n "$built" ] && return 0
    need swift
    echo "bench: building release (swift build ${release_flags[*]}) in $scratch" >&2
    (cd "$repo" && swift build "${release_flags[@]}" --scratch-path "$scratch" --product pbctl-bench >&2)
    # pbctl itself (the CLI under test); tolerated to fail while the CLI is being wired.
    (cd "$repo" && swift build "${release_flags[@]}" --scratch-path "$scratch" --product pbctl >&2) || true
    bindir=$(cd "$repo" && swift build "${release_flags[@]}" --scratch-path "$scratch" --show-bin-path)
    bench_bin="$bindir/pbctl-bench"
    pbctl_bin="$bindir/pbctl"
    built=1
}

machine_info() {
    local cpu
    cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
    echo "- Machine: ${cpu:-unknown CPU}, $(nproc) cores, $(uname -sr)"
    echo "- Toolchain: $(swift --version 2>/dev/null | head -1)"
    echo "- cmark: $(cmark --version 2>/dev/null | head -1); cmark-gfm: $(cmark-gfm --version 2>/dev/null | head -1)"
    echo "- hyperfine $(hyperfine --version 2>/dev/null | awk '{print $2}'), $runs runs after 2 warm-ups, \`-N\` (no shell); wall-clock medians; MB = 10^6 bytes"
}

# hyperfine_medians JSON -> lines "command<TAB>median_seconds"
hyperfine_medians() {
    python3 - "$1" <<'EOF'
import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(r["command"] + "\t" + repr(statistics.median(r["times"])))
EOF
}

# peak_rss_kb CMD... -> peak resident set size (KB) of one run
peak_rss_kb() {
    /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1
}

# --------------------------------------------------------------------------------------------------
# Section: Markdown → HTML (pbctl convert vs cmark vs cmark-gfm)
# --------------------------------------------------------------------------------------------------
section_markdown() {
    need hyperfine; need python3; need cmark; need cmark-gfm
    build_release
    local spec="$repo/Tests/SpecConformanceTests/Specs/commonmark-0.31.2-spec.txt"
    local spec8="$work/spec-x40.md"
    for _ in $(seq 40); do cat "$spec"; done > "$spec8"
    local inputs=("$spec8")
    local names=("CommonMark spec.txt ×40")
    local corpus="$work/nodejs-doc.md"
    # Debian's nodejs-doc is unpacked into the scratch directory, never installed: installing it makes apt
    # remove a nodejs that did not come from Debian (NodeSource's), which is not ours to remove.
    local docs=/usr/share/doc/nodejs
    if [ ! -d "$docs/api" ] && command -v apt-get >/dev/null; then
        if [ ! -d "$work/nodejs-doc/usr/share/doc/nodejs" ]; then
            (cd "$work" && rm -f nodejs-doc_*.deb && apt-get download -qq nodejs-doc >/dev/null 2>&1 \
                && dpkg-deb -x nodejs-doc_*.deb "$work/nodejs-doc") || true
        fi
        docs="$work/nodejs-doc/usr/share/doc/nodejs"
    fi
    if [ -d "$docs" ]; then
        # Debian compresses most of them (.md.gz).
        find "$docs" \( -name '*.md' -o -name '*.md.gz' \) -print0 | sort -z | xargs -0 zcat -f > "$corpus"
        if [ -s "$corpus" ]; then
            inputs+=("$corpus")
            names+=("nodejs-doc Markdown (Debian package, all \`api/*.md\` concatenated)")
        fi
    fi

    # The CLI under test: `pbctl convert --from gfm --to html FILE` when it works, else the in-process
    # driver's equivalent (same engine, same API call).
    local pbctl_gfm pbctl_cm cli_note
    if [ -x "$pbctl_bin" ] && printf '*a*\n' > "$work/probe.md" \
        && "$pbctl_bin" convert --from gfm --to html "$work/probe.md" 2>/dev/null | grep -q '<em>a</em>'; then
        pbctl_gfm="$pbctl_bin convert --from gfm --to html"
        pbctl_cm="$pbctl_bin convert --from commonmark --to html"
        cli_note="\`pbctl convert --from gfm|commonmark --to html FILE\`"
    else
        pbctl_gfm="$bench_bin convert"
        pbctl_cm="$bench_bin convert --commonmark"
        cli_note="\`pbctl-bench convert FILE\` (pbctl convert was not available in this build; same engine call)"
    fi
    local gfm_ext="-e table -e strikethrough -e autolink -e tagfilter -e footnotes -e tasklist"

    echo "## Markdown → HTML"
    echo
    echo "Command: \`make bench\` (scripts/bench.sh, section \`markdown\`), run $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo
    machine_info
    echo "- pbctl: $cli_note; cmark: \`cmark --unsafe FILE\`; cmark-gfm: \`cmark-gfm --unsafe $gfm_ext FILE\`"
    echo "  (raw HTML passed through by all three, so the work is the same)."
    echo
    echo "### Whole files, one process per run (includes process start-up)"
    echo
    echo "| input | size | pbctl gfm | cmark-gfm | pbctl commonmark | cmark | pbctl gfm vs cmark-gfm | pbctl commonmark vs cmark |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    local k
    for k in "${!inputs[@]}"; do
        local f="${inputs[$k]}" size json
        size=$(stat -c %s "$f")
        json="$work/hf-$k.json"
        hyperfine -N --warmup 2 --runs "$runs" --export-json "$json" \
            "$pbctl_gfm $f" "cmark-gfm --unsafe $gfm_ext $f" "$pbctl_cm $f" "cmark --unsafe $f" >/dev/null 2>&1
        mapfile -t med < <(hyperfine_medians "$json" | cut -f2)
        python3 - "${names[$k]}" "$size" "${med[@]}" <<'EOF'
import sys
name, size = sys.argv[1], int(sys.argv[2])
pg, cg, pc, cc = map(float, sys.argv[3:7])
mb = lambda t: f"{size / t / 1e6:.1f} MB/s ({t * 1000:.0f} ms)"
print(f"| {name} | {size / 1e6:.2f} MB | {mb(pg)} | {mb(cg)} | {mb(pc)} | {mb(cc)} | {cg / pg:.2f}× | {cc / pc:.2f}× |")
EOF
    done
    echo
    echo "Ratios are reference time ÷ pbctl time: above 1 means pbctl is faster."
    echo
    echo "### In-process (no process start-up)"
    echo
    echo "| input | mode | parse + render | parse only |"
    echo "|---|---|---:|---:|"
    for k in "${!inputs[@]}"; do
        local f="${inputs[$k]}"
        for mode in gfm commonmark; do
            local flag=""
            [ "$mode" = commonmark ] && flag="--commonmark"
            read -r _ bytes med mbps parse nodes < <("$bench_bin" throughput "$f" $flag --iterations 7)
            python3 - "${names[$k]}" "$mode" "$bytes" "$med" "$mbps" "$parse" <<'EOF'
import sys
name, mode, size, med, mbps, parse = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
print(f"| {name} | {mode} | {mbps:.1f} MB/s ({med * 1000:.0f} ms) | {size / parse / 1e6:.1f} MB/s ({parse * 1000:.0f} ms) |")
EOF
        done
    done
    echo
    # Small (clipboard-sized) documents: 1–10 KB files of the corpus, or slices of the spec.
    local small=()
    if [ -d /usr/share/doc/nodejs ]; then
        mapfile -t small < <(find /usr/share/doc/nodejs -name '*.md' -size +1k -size -11k | sort | head -60)
    fi
    if [ "${#small[@]}" -eq 0 ]; then
        mkdir -p "$work/small"
        split -b 6000 "$spec" "$work/small/part-"
        mapfile -t small < <(ls "$work/small"/part-* | head -30)
    fi
    read -r _ ndocs sbytes smed smbps sp90 < <("$bench_bin" small "${small[@]}" --iterations 200)
    echo "### Small documents (1–10 KB), in-process"
    echo
    python3 - "$ndocs" "$sbytes" "$smed" "$smbps" "$sp90" <<'EOF'
import sys
n, b, med, mbps, p90 = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
print(f"{n} documents, {b / n / 1000:.1f} KB on average, each parsed and rendered (GFM) 200 times: "
      f"median **{med:.1f} µs** per document (p90 {p90:.1f} µs), **{mbps:.1f} MB/s** overall.")
EOF
    echo "(cmark has no in-process comparison here: it would need its C library, which the engine does not use.)"
    echo
    echo "### Peak memory"
    echo
    local rss size
    size=$(stat -c %s "$spec8")
    rss=$(peak_rss_kb $pbctl_gfm "$spec8")
    local crss
    crss=$(peak_rss_kb cmark-gfm --unsafe $gfm_ext "$spec8")
    python3 - "$size" "$rss" "$crss" <<'EOF'
import sys
size, rss, crss = int(sys.argv[1]), int(sys.argv[2]) * 1024, int(sys.argv[3]) * 1024
print(f"On the {size / 1e6:.1f} MB input: pbctl peak RSS {rss / 1e6:.0f} MB (**{rss / size:.1f}×** the input), "
      f"cmark-gfm {crss / 1e6:.0f} MB ({crss / size:.1f}×). Measured with `/usr/bin/time -f %M`.")
EOF
    echo
    echo "### Output identity"
    echo
    local same=0 total=0 f
    for f in "${inputs[@]}"; do
        total=$((total + 1))
        if cmp -s <($pbctl_gfm "$f") <(cmark-gfm --unsafe $gfm_ext "$f"); then same=$((same + 1)); fi
    done
    echo "pbctl's GFM output is byte-identical to cmark-gfm's on $same of $total benchmark inputs."
    echo
}

# --------------------------------------------------------------------------------------------------
# Section: rich text (another engineer's script; optional)
# --------------------------------------------------------------------------------------------------
section_richtext() {
    if [ -x "$repo/scripts/bench-richtext.sh" ]; then
        "$repo/scripts/bench-richtext.sh"
    else
        return 0
    fi
}

# --------------------------------------------------------------------------------------------------
# Section: X11 selections (pbctl vs xsel and xclip under a private Xvfb)
# --------------------------------------------------------------------------------------------------
section_x11() {
    build_release
    "$repo/scripts/bench-x11.sh" "$pbctl_bin"
}

# --------------------------------------------------------------------------------------------------
# Section: the Wayland clipboard (pbctl paste and copy vs wl-paste and wl-copy under headless sway)
# --------------------------------------------------------------------------------------------------
section_wayland() {
    build_release
    "$repo/scripts/bench-wayland.sh" "$pbctl_bin"
}

# --------------------------------------------------------------------------------------------------
# Section: the store (pbctl copy and paste without a display vs cp and cat)
# --------------------------------------------------------------------------------------------------
section_store() {
    build_release
    "$repo/scripts/bench-store.sh" "$pbctl_bin"
}

# --------------------------------------------------------------------------------------------------
# Section: images (PNG to JPEG and BMP, a 4K screenshot, pbctl-bench image-convert vs ImageMagick)
# --------------------------------------------------------------------------------------------------
section_images() {
    build_release
    "$repo/scripts/bench-images.sh" "$bench_bin"
}

# --------------------------------------------------------------------------------------------------
# Section: ssh (100 MB both ways across a loopback SSH connection, pbctl ssh vs ssh + cat)
# --------------------------------------------------------------------------------------------------
section_ssh() {
    build_release
    "$repo/scripts/bench-ssh.sh" "$pbctl_bin"
}

# --------------------------------------------------------------------------------------------------
{
    echo "# Benchmarks"
    echo
    echo "Generated by \`make bench\` (scripts/bench.sh): every section below comes from one run of that command."
    echo "Do not edit by hand: re-run the command."
    echo
} > "$work/head.md"
parts=("$work/head.md")
for s in $sections; do
    if ! declare -F "section_$s" >/dev/null; then
        echo "bench: unknown section $s" >&2
        continue
    fi
    echo "bench: section $s" >&2
    if "section_$s" > "$work/section-$s.md"; then
        parts+=("$work/section-$s.md")
    else
        printf '## %s\n\n(section failed; see the make bench log)\n\n' "$s" > "$work/section-$s.md"
        parts+=("$work/section-$s.md")
    fi
done
mkdir -p "$(dirname "$out")"
cat "${parts[@]}" > "$out"
echo "bench: wrote $out" >&2
