#!/usr/bin/env bash
# `make bench` driver: builds release binaries and writes docs/benchmarks.md.
#
# Usage: scripts/bench.sh [-o OUTPUT.md]          (default output: docs/benchmarks.md)
# Environment:
#   BENCH_SECTIONS   space-separated section names to run (default: "markdown richtext x11 wayland store
#                    history images ssh baseline"; a section whose script is missing is skipped); the others are kept from the
#                    existing output file
#   BENCH_SCRATCH    SwiftPM scratch path for the release build (default: .build-bench)
#   BENCH_RUNS       hyperfine runs per command (default 10)
#
# Adding a section: write a function `section_<name>` that prints a Markdown section (starting with
# "## …") to stdout, and add <name> to the default BENCH_SECTIONS below. Each section runs on its own;
# a failing section is reported in the file instead of aborting the others.
#
# Tools: swift, hyperfine, python3, cmark, cmark-gfm, pulldown-cmark, cc with libmd4c-dev and
# libmd4c-html0-dev (Debian packages). Nothing is downloaded: the
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
default_sections="markdown richtext x11 wayland store history images ssh baseline"
sections="${BENCH_SECTIONS:-$default_sections}"
scratch="${BENCH_SCRATCH:-$repo/.build-bench}"
runs="${BENCH_RUNS:-10}"
work=$(mktemp -d "${TMPDIR:-/tmp}/pbctl-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

need() { command -v "$1" >/dev/null 2>&1 || { echo "bench: $1 not found (make bench installs it)" >&2; exit 1; }; }

# The release flags of `make release` (Makefile RELEASE_FLAGS), so the pbctl measured is the one installed.
release_flags=(${BENCH_RELEASE_FLAGS:--c release --static-swift-stdlib -Xswiftc -static-executable -Xswiftc -Xfrontend -Xswiftc -function-sections -Xlinker -lXau -Xlinker -lXdmcp
    -Xswiftc -use-ld=lld -Xlinker --symbol-ordering-file=$repo/scripts/startup.order -Xlinker --no-warn-symbol-ordering
    -Xlinker --wrap=OPENSSL_cpuid_setup -Xlinker --undefined=OPENSSL_cpuid_setup})
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

# markdown_peers SPEC SPEC-NAME CORPUS CORPUS-NAME SMALL-FILE...: the whole-process comparison with md4c (through
# Benchmarks/peers/md4c-html.c, built here from Debian's libmd4c-dev and libmd4c-html0-dev) and pulldown-cmark
# (Debian's CLI), interleaved in one run by Benchmarks/peers/bench-exec.c (built here too), and the start-up
# of each path beside /bin/true and a static C program. Uses $pbctl_bin, $work, $runs.
markdown_peers() {
    local spec=$1 spec_name=$2 corpus=$3 corpus_name=$4
    shift 4
    local small=("$@")
    need cc; need pulldown-cmark
    local exec=$work/bench-exec md4c=$work/md4c-html truec=$work/true-static
    cc -O2 -o "$exec" "$repo/Benchmarks/peers/bench-exec.c"
    cc -O2 -o "$md4c" "$repo/Benchmarks/peers/md4c-html.c" -lmd4c-html -lmd4c
    printf 'int main(void) { return 0; }\n' > "$work/true.c"
    cc -O2 -static -o "$truec" "$work/true.c"
    local pb=$pbctl_bin
    echo "### Against md4c and pulldown-cmark (whole process, interleaved)"
    echo
    echo "- md4c $(dpkg-query -W -f='${Version}' libmd4c0 2>/dev/null): \`md4c-html [--gfm] FILE\` (Benchmarks/peers/md4c-html.c: \`md_html()\`, the"
    echo "  input read whole, the HTML written once; \`--gfm\` is MD_DIALECT_GITHUB: tables, strikethrough, task lists,"
    echo "  permissive autolinks; raw HTML kept); pulldown-cmark $(dpkg-query -W -f='${Version}' pulldown-cmark 2>/dev/null): \`pulldown-cmark < FILE\`,"
    echo "  GFM as \`-T -S -L -F\` (tables, strikethrough, task lists, footnotes); pbctl: \`pbctl convert --from gfm|commonmark --to html FILE\`."
    echo "  Neither peer is byte-identical to cmark (pbctl is); their GFM lacks some of cmark-gfm's extensions, so it does less."
    echo "- Benchmarks/peers/bench-exec.c runs the commands interleaved: each of $runs rounds (after 2 warm-up rounds) runs"
    echo "  every command once on every input, one process per input, the first command rotating; the table shows each"
    echo "  command's median round (a batch: the sum of its processes), and the peak resident set of its largest process."
    echo
    echo "| input | dialect | pbctl | md4c | pulldown-cmark | pbctl ÷ md4c | pbctl ÷ pulldown-cmark | peak: pbctl, md4c, pulldown-cmark |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|"
    local list=$work/peers.list name dialect
    peer_row() {  # peer_row NAME DIALECT (inputs in $list)
        local md="" pd=()
        if [ "$2" = gfm ]; then md="--gfm"; pd=(-T -S -L -F); fi
        "$exec" -r "$runs" -w 2 -l "$list" \
            --command pbctl "$pb" convert --from "$2" --to html {} \
            --command md4c "$md4c" $md {} \
            --command pulldown pulldown-cmark "${pd[@]}" '<{}' > "$work/peers.tsv"
        python3 - "$1" "$2" "$work/peers.tsv" <<'PY'
import sys
name, dialect = sys.argv[1], sys.argv[2]
rows = {line.split("\t")[0]: line.split("\t")[1:] for line in open(sys.argv[3]).read().splitlines()}
t = {k: float(v[0]) for k, v in rows.items()}
peak = {k: int(v[2]) / 1000 for k, v in rows.items()}
ms = lambda s: f"{s * 1000:.1f} ms"
print(f"| {name} | {dialect} | {ms(t['pbctl'])} | {ms(t['md4c'])} | {ms(t['pulldown'])} | "
      f"**{t['pbctl'] / t['md4c']:.2f}** | **{t['pbctl'] / t['pulldown']:.2f}** | "
      f"{peak['pbctl']:.1f} MB, {peak['md4c']:.1f} MB, {peak['pulldown']:.1f} MB |")
PY
    }
    for dialect in commonmark gfm; do
        echo "$spec" > "$list"; peer_row "$spec_name" $dialect
        if [ -n "$corpus" ]; then echo "$corpus" > "$list"; peer_row "$corpus_name" $dialect; fi
        printf '%s\n' "${small[@]}" > "$list"
        peer_row "${#small[@]} small documents (1–10 KB), one process each" $dialect
    done
    echo
    echo "Ratios are pbctl time ÷ the peer's: under 1 means pbctl is faster. MB = 10^6 bytes (ru_maxrss, KB ÷ 1000)."
    echo
    echo "#### Start-up"
    echo
    echo "An empty input, one process, the same interleaved runs ($((runs * 10)) rounds): each path beside /bin/true and a static C"
    echo "program that returns at once. The paste path converts a one-line Markdown item (\`*hello*\`) from a private store"
    echo "(\`PBCTL_BACKEND=store\`): \`paste --as html\` takes the quick way (Backends/FastPaste.swift)."
    echo
    : > "$work/empty.md"
    echo "$work/empty.md" > "$list"
    printf '*hello*\n' > "$work/hello.md"
    PBCTL_STORE=$work/peer-store PBCTL_HISTORY=$work/peer-history PBCTL_BACKEND=store "$pb" copy "$work/hello.md"
    "$exec" -r $((runs * 10)) -w 5 -l "$list" \
        --command "/bin/true" /bin/true \
        --command "static C program" "$truec" \
        --command "pbctl --version" "$pb" --version \
        --command "pbctl convert --from gfm --to html" "$pb" convert --from gfm --to html {} \
        --command "pbctl convert --from commonmark --to html" "$pb" convert --from commonmark --to html {} \
        --command "pbctl paste --as html (store)" PBCTL_STORE=$work/peer-store PBCTL_HISTORY=$work/peer-history PBCTL_BACKEND=store "$pb" paste --as html \
        --command "md4c-html --gfm" "$md4c" --gfm {} \
        --command "pulldown-cmark" pulldown-cmark '<{}' \
        --command "cmark-gfm" cmark-gfm --unsafe {} > "$work/startup.tsv"
    python3 - "$work/startup.tsv" <<'PY'
import sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().splitlines()]
true = float(rows[0][1])
print("| command | time | ÷ /bin/true | peak memory |")
print("|---|---:|---:|---:|")
for name, median, _, peak in rows:
    print(f"| `{name}` | {float(median) * 1000:.2f} ms | {float(median) / true:.2f} | {int(peak) / 1000:.1f} MB |")
PY
    echo
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
    markdown_peers "$spec8" "${names[0]}" "${inputs[1]:-}" "${names[1]:-}" "${small[@]}"
    echo "### In-process (no process start-up)"
    echo
    echo "Straight to HTML is what \`pbctl convert\` and a paste \`--as html\` do (\`MarkdownParser.renderHTML\`, the HTML"
    echo "handed over in 64 KiB chunks); the document is what the other writers read (\`MarkdownParser.parse\`, every"
    echo "inline a node), rendered by \`HTMLWriter.render\`. Medians of 7 runs."
    echo
    echo "| input | mode | parse + render, straight to HTML | parse only (the document) | parse + render through the document |"
    echo "|---|---|---:|---:|---:|"
    for k in "${!inputs[@]}"; do
        local f="${inputs[$k]}"
        for mode in gfm commonmark; do
            local flag=""
            [ "$mode" = commonmark ] && flag="--commonmark"
            read -r _ bytes med mbps parse nodes tree < <("$bench_bin" throughput "$f" $flag --iterations 7)
            python3 - "${names[$k]}" "$mode" "$bytes" "$med" "$parse" "$tree" <<'EOF'
import sys
name, mode, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
med, parse, tree = map(float, sys.argv[4:7])
rate = lambda t: f"{size / t / 1e6:.1f} MB/s ({t * 1000:.0f} ms)"
print(f"| {name} | {mode} | **{rate(med)}** | {rate(parse)} | {rate(tree)} |")
EOF
        done
    done
    echo
    echo "### Small documents (1–10 KB), in-process"
    echo
    local how
    for how in direct tree; do
        local flag=""
        [ "$how" = tree ] && flag="--tree"
        read -r _ ndocs sbytes smed smbps sp90 < <("$bench_bin" small "${small[@]}" $flag --iterations 200)
        python3 - "$how" "$ndocs" "$sbytes" "$smed" "$smbps" "$sp90" <<'EOF'
import sys
how = "straight to HTML" if sys.argv[1] == "direct" else "through the document"
n, b, med, mbps, p90 = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
print(f"- {how}: {n} documents, {b / n / 1000:.1f} KB on average, each parsed and rendered (GFM) 200 times: "
      f"median **{med:.1f} µs** per document (p90 {p90:.1f} µs), **{mbps:.1f} MB/s** overall.")
EOF
    done
    echo
    echo "(cmark has no in-process comparison here: it would need its C library, which the engine does not use.)"
    echo
    echo "### Heap allocations per KB of input"
    echo
    echo "Calls to malloc, calloc, realloc and the aligned allocators during one parse and render (GFM), after a warm-up"
    echo "pass, counted inside pbctl-bench (its link wraps them: Benchmarks/CBenchAlloc). KB = 1000 bytes."
    echo
    echo "| input | straight to HTML | through the document |"
    echo "|---|---:|---:|"
    for k in "${!inputs[@]}"; do
        read -r _ _ _ acount aper < <("$bench_bin" allocations "${inputs[$k]}")
        read -r _ _ _ tcount tper < <("$bench_bin" allocations "${inputs[$k]}" --tree)
        python3 -c 'import sys; print("| %s | %.3f (%s in all) | %.3f (%s in all) |" % (sys.argv[1], float(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[5]))' \
            "${names[$k]}" "$aper" "$acount" "$tper" "$tcount"
    done
    read -r _ ndocs _ acount aper < <("$bench_bin" allocations "${small[@]}")
    read -r _ _ _ tcount tper < <("$bench_bin" allocations "${small[@]}" --tree)
    python3 -c 'import sys; n = int(sys.argv[1]); print("| the %d small documents above, each parsed alone | %.2f (%.1f a document) | %.2f (%.1f a document) |" % (n, float(sys.argv[2]), int(sys.argv[3]) / n, float(sys.argv[4]), int(sys.argv[5]) / n))' \
        "$ndocs" "$aper" "$acount" "$tper" "$tcount"
    echo
    echo "### Peak memory"
    echo
    echo "Whole process, \`pbctl convert --from gfm --to html FILE\` beside \`cmark-gfm --unsafe $gfm_ext FILE\`: peak"
    echo "resident set size (\`/usr/bin/time -f %M\`, each process's own start-up included) and its ratio to the input."
    echo "The shapes (scripts/gen-markdown-inputs.py): emphasis-dense is one line of \`word *em* \`; link-dense, inline,"
    echo "reference and angle-bracket links; nested, lists in quotes in lists in quotes, all in one top-level quote;"
    echo "prose, paragraphs of 72-character lines."
    echo
    echo "| input | size | pbctl peak | pbctl ÷ input | cmark-gfm peak | cmark-gfm ÷ input |"
    echo "|---|---:|---:|---:|---:|---:|"
    memory_row() {  # name file
        local size rss crss
        size=$(stat -c %s "$2")
        rss=$(peak_rss_kb $pbctl_gfm "$2")
        crss=$(peak_rss_kb cmark-gfm --unsafe $gfm_ext "$2")
        python3 - "$1" "$size" "$rss" "$crss" <<'EOF'
import sys
name, size, rss, crss = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) * 1024, int(sys.argv[4]) * 1024
print(f"| {name} | {size / 1e6:.1f} MB | {rss / 1e6:.0f} MB | **{rss / size:.1f}×** | {crss / 1e6:.0f} MB | {crss / size:.1f}× |")
EOF
    }
    for k in "${!inputs[@]}"; do memory_row "${names[$k]}" "${inputs[$k]}"; done
    local shape mb label shaped=()
    for shape in emphasis links nested prose; do
        case $shape in
            emphasis) label="emphasis-dense" ;; links) label="link-dense" ;; nested) label="nested lists and quotes" ;; *) label="$shape" ;;
        esac
        for mb in 10 50; do
            python3 "$repo/scripts/gen-markdown-inputs.py" "$shape" $((mb * 1000000)) > "$work/$shape-$mb.md"
            memory_row "$label" "$work/$shape-$mb.md"
            if [ "$mb" = 10 ]; then shaped+=("$work/$shape-$mb.md"); else rm -f "$work/$shape-$mb.md"; fi
        done
    done
    echo
    echo "The adversarial shapes, 10 MiB each (pbctl must stay linear on all of them, and under 8× the input): those of"
    echo "scripts/pathological-pairs.py, then cmark's test/pathological_tests.py, then shapes that keep inline constructs"
    echo "waiting behind an opener or an open bracket (scripts/gen-markdown-inputs.py names each)."
    echo
    echo "| shape | pbctl peak ÷ input | pbctl time | cmark-gfm peak ÷ input | cmark-gfm time |"
    echo "|---|---:|---:|---:|---:|"
    for shape in nested-block-quotes nested-quotes-one-paragraph-each nested-lists-on-one-line quote-list-mix long-emphasis-runs \
        unmatched-openers nested-brackets link-openers-and-closers tall-table many-footnotes html-block-run entities \
        empty-list-items short-list-items nested-strong-emphasis emphasis-closers-without-openers \
        emphasis-openers-without-closers link-closers-without-openers link-openers-without-closers \
        mismatched-openers-and-closers link-openers-and-emphasis-closers image-link-pattern emphasis-without-spaces \
        strong-without-spaces open-brackets brackets-and-emphasis emphasis-in-one-link \
        emphasis-in-one-link-after-an-opener links-after-an-opener reference-links-after-an-opener; do
        python3 "$repo/scripts/gen-markdown-inputs.py" "$shape" $((10 << 20)) > "$work/shape.md"
        local size p c
        size=$(stat -c %s "$work/shape.md")
        p=$(/usr/bin/time -f '%M %e' $pbctl_gfm "$work/shape.md" 2>&1 >/dev/null | tail -1)
        # cmark-gfm 0.29 is quadratic on some of these (image link pattern): stopped after 60 s.
        c=$( { /usr/bin/time -f '%M %e %x' timeout 60 cmark-gfm --unsafe $gfm_ext "$work/shape.md" >/dev/null; } 2>&1 | tail -1)
        python3 - "$shape" "$size" $p $c <<'EOF'
import sys
shape, size = sys.argv[1].replace("-", " "), int(sys.argv[2])
prss, pt, crss, ct, cstatus = int(sys.argv[3]) * 1024, float(sys.argv[4]), int(sys.argv[5]) * 1024, float(sys.argv[6]), int(sys.argv[7])
cmark = f"{crss / size:.1f}× | {ct:.2f} s" if cstatus != 124 else f"≥ {crss / size:.1f}× | stopped after 60 s"
print(f"| {shape} | {prss / size:.1f}× | {pt:.2f} s | {cmark} |")
EOF
    done
    rm -f "$work/shape.md"
    echo
    echo "### Output identity"
    echo
    local same=0 total=0 f
    for f in "${inputs[@]}" "${shaped[@]}"; do
        total=$((total + 1))
        if cmp -s <($pbctl_gfm "$f") <(cmark-gfm --unsafe $gfm_ext "$f"); then same=$((same + 1)); fi
    done
    echo "pbctl's GFM output is byte-identical to cmark-gfm's on $same of $total inputs (the benchmark inputs and the 10 MB"
    echo "shapes of the memory table)."
    echo
}

# --------------------------------------------------------------------------------------------------
# Section: rich text (another engineer's script; optional)
# --------------------------------------------------------------------------------------------------
section_richtext() {
    if [ -x "$repo/scripts/bench-richtext.sh" ]; then
        build_release
        PBCTL_BENCH="$bench_bin" "$repo/scripts/bench-richtext.sh"
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
# Section: the history at 1k, 10k, 100k and 1M entries (scripts/bench-history.sh)
# --------------------------------------------------------------------------------------------------
section_history() {
    build_release
    "$repo/scripts/bench-history.sh" "$pbctl_bin"
}

# --------------------------------------------------------------------------------------------------
# Section: baseline (the Markdown engine before and after a restructuring: CPU time and peak memory of
# the same conversions with the release binary of BENCH_BASELINE=REV, built in a worktree of its own, or
# BENCH_BASELINE_BINARY=PATH, beside this tree's; scripts/bench-before-after.py). Without either it is
# skipped and the section already in docs/benchmarks.md is kept.
# --------------------------------------------------------------------------------------------------
section_baseline() {
    local old="${BENCH_BASELINE_BINARY:-}" label="${BENCH_BASELINE_LABEL:-}"
    if [ -z "$old" ] && [ -n "${BENCH_BASELINE:-}" ]; then
        local tree="$work/baseline"
        git -C "$repo" worktree add -q --detach "$tree" "$BENCH_BASELINE" >&2
        (cd "$tree" && swift build "${release_flags[@]//$repo/$tree}" --scratch-path "$scratch-baseline" --product pbctl >&2)
        old="$(cd "$tree" && swift build "${release_flags[@]//$repo/$tree}" --scratch-path "$scratch-baseline" --show-bin-path)/pbctl"
        label="${label:-$(git -C "$repo" log -1 --format='%h' "$BENCH_BASELINE")}"
    fi
    [ -n "$old" ] || return 3
    build_release
    local spec="$repo/Tests/SpecConformanceTests/Specs/commonmark-0.31.2-spec.txt" spec8="$work/baseline-spec-x40.md"
    for _ in $(seq 40); do cat "$spec"; done > "$spec8"
    local inputs=("CommonMark spec.txt ×40=$spec8")
    if [ -d /usr/share/doc/nodejs/api ]; then
        find /usr/share/doc/nodejs \( -name '*.md' -o -name '*.md.gz' \) -print0 | sort -z | xargs -0 zcat -f > "$work/baseline-node.md"
        inputs+=("nodejs-doc Markdown=$work/baseline-node.md")
    fi
    echo "## Before and after a restructuring"
    echo
    echo "Command: \`BENCH_SECTIONS=baseline BENCH_BASELINE=REV make bench\` (or \`BENCH_BASELINE_BINARY=PATH\`; scripts/bench-before-after.py), run $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "\`pbctl convert --from DIALECT --to html FILE\`, the two release binaries run alternately; CPU time (user + system) of"
    echo "the whole process (the median of 15 runs each; for an empty file the mean of 400), and peak resident memory (\`/usr/bin/time -f %M\`). Before: ${label:-$old}; after: this tree."
    echo
    python3 "$repo/scripts/bench-before-after.py" "$old" "before" "$pbctl_bin" "after" "${inputs[@]}"
    echo
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
    echo "Generated by \`make bench\` (scripts/bench.sh): each section below comes from one run of that command (its date"
    echo "is in it); \`BENCH_SECTIONS=\"…\" scripts/bench.sh\` re-runs some and keeps the others. Do not edit by hand: re-run"
    echo "the command."
    echo
} > "$work/head.md"
for s in $sections; do
    if ! declare -F "section_$s" >/dev/null; then
        echo "bench: unknown section $s" >&2
        continue
    fi
    echo "bench: section $s" >&2
    if "section_$s" > "$work/section-$s.md"; then status=0; else status=$?; fi
    if [ "$status" -eq 3 ]; then
        rm -f "$work/section-$s.md"  # nothing asked of it: the section already written is kept
    elif [ "$status" -ne 0 ]; then
        printf '## %s\n\n(section failed; see the make bench log)\n\n' "$s" > "$work/section-$s.md"
    fi
done
mkdir -p "$(dirname "$out")"
# Every section in the default order: from this run, or (a run of some sections only) kept from the
# existing file, found by its heading.
python3 - "$work" "$out" $default_sections <<'EOF'
import os, sys
work, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
headings = {"markdown": "## Markdown → HTML", "richtext": "## Rich text conversions", "x11": "## X11 selections",
            "wayland": "## Wayland clipboard", "store": "## Store (no display)", "images": "## Images",
            "ssh": "## pbctl ssh", "history": "## History at scale", "baseline": "## Before and after a restructuring"}
kept = {}
if os.path.exists(out):
    current, lines = None, []
    for line in open(out, encoding="utf-8").read().splitlines(keepends=True) + ["## \n"]:
        if line.startswith("## "):
            if current: kept[current] = "".join(lines)
            current = next((n for n, h in headings.items() if line.rstrip("\n") == h), None)
            lines = []
        lines.append(line)
parts = [open(os.path.join(work, "head.md"), encoding="utf-8").read()]
for name in names:
    path = os.path.join(work, "section-%s.md" % name)
    if os.path.exists(path):
        parts.append(open(path, encoding="utf-8").read())
    elif name in kept:
        parts.append(kept[name])
open(out, "w", encoding="utf-8").write("".join(parts))
EOF
echo "bench: wrote $out" >&2
