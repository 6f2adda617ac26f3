#!/bin/bash
# X11 selection benchmarks for `make bench`: pbctl against xsel and xclip, side by side in one run,
# under a private Xvfb. Prints a Markdown section (also written to docs/benchmarks-x11.md with --write).
#
#   scripts/bench-x11.sh [PBCTL_BINARY] [--write]
#
# Needs: Xvfb, xclip, xsel, /usr/bin/time (GNU, for peak memory).
set -euo pipefail
cd "$(dirname "$0")/.."
PBCTL=${1:-.build/release/pbctl}
WRITE=${2:-}
[ -x "$PBCTL" ] || { echo "bench-x11: build pbctl first (swift build -c release)" >&2; exit 1; }
for tool in Xvfb xclip xsel; do command -v $tool >/dev/null || { echo "bench-x11: $tool is missing" >&2; exit 1; }; done
[ -x /usr/bin/time ] || { echo "bench-x11: GNU time is missing (apt-get install time)" >&2; exit 1; }

work=$(mktemp -d)
exec 3> "$work/displayfd"
Xvfb -displayfd 3 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s "$work/displayfd" ] && break; sleep 0.1; done
export DISPLAY=:$(head -1 "$work/displayfd")
export PBCTL_BACKEND=x11

now() { date +%s%N; }
# Runs "$@" N times, prints the median wall time in milliseconds.
median_ms() {
    local n=$1; shift
    local times=()
    for _ in $(seq "$n"); do
        local s=$(now); "$@" >/dev/null 2>&1; local e=$(now)
        times+=($(( (e - s) / 1000 )))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]/1000}'
}

# 1. Small paste latency: a 12-byte clipboard owned by xclip, read by each tool.
printf 'hello world\n' | xclip -i -selection clipboard
small_pbctl=$(median_ms 30 "$PBCTL" paste)
small_xsel=$(median_ms 30 xsel -b -o)
small_xclip=$(median_ms 30 xclip -o -selection clipboard)

# 2. 128 MB paste throughput and peak memory, both readers against the same owner (pbctl copy).
{ head -c 100663296 /dev/urandom | base64 -w 120 | head -c 134217728 > "$work/big.txt"; } || true
size=$(stat -c %s "$work/big.txt")
"$PBCTL" copy --type txt < "$work/big.txt"
big_pbctl=$(median_ms 3 sh -c "\"$PBCTL\" paste > $work/out1")
big_xclip=$(median_ms 3 sh -c "xclip -o -selection clipboard > $work/out2")
cmp -s "$work/big.txt" "$work/out1" || echo "bench-x11: pbctl paste was not byte-exact" >&2
cmp -s "$work/big.txt" "$work/out2" || echo "bench-x11: xclip -o was not byte-exact" >&2
rss_pbctl=$(/usr/bin/time -f %M "$PBCTL" paste 2>&1 >/dev/null | tail -1)
rss_xclip=$(/usr/bin/time -f %M xclip -o -selection clipboard 2>&1 >/dev/null | tail -1)

# 3. Copy of an 8 MB Markdown file: pbctl copy (lazy conversions) vs xclip -i.
{ for i in $(seq 90000); do printf '## Section %d\n\nSome *emphasis*, a [link](https://example.com/%d) and `code`.\n\n- item\n- item\n\n' $i $i; done | head -c 8388608 > "$work/doc.md"; } || true
copy_pbctl=$(median_ms 5 "$PBCTL" copy "$work/doc.md")
copy_xclip=$(median_ms 5 xclip -i -selection clipboard -t text/markdown "$work/doc.md")
"$PBCTL" clear || true

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
mbps() { awk -v s="$1" -v ms="$2" 'BEGIN { if (ms > 0) printf "%.0f", s / 1048576 / (ms / 1000); else print "n/a" }'; }

report=$(cat <<MD
## X11 selections (scripts/bench-x11.sh, $(date -u +%Y-%m-%d), Xvfb, $(nproc) cores)

| Measurement | pbctl | xsel | xclip | Ratio | Target |
|---|---|---|---|---|---|
| Paste of a 12-byte clipboard (median of 30, ms) | $small_pbctl | $small_xsel | $small_xclip | pbctl/xsel = $(ratio "$small_pbctl" "$small_xsel") | ≤ 1.00 |
| Paste of $((size / 1048576)) MiB (median of 3, ms) | $big_pbctl | | $big_xclip | throughput pbctl/xclip = $(ratio "$big_xclip" "$big_pbctl") ($(mbps $size $big_pbctl) vs $(mbps $size $big_xclip) MiB/s) | ≥ 2.00 |
| Peak memory of that paste (MiB) | $((rss_pbctl / 1024)) | | $((rss_xclip / 1024)) | pbctl/payload = $(ratio $((rss_pbctl * 1024)) $size) | ≤ 1.50 |
| Copy of an 8 MiB Markdown file (median of 5, ms) | $copy_pbctl | | $copy_xclip | pbctl/xclip = $(ratio "$copy_pbctl" "$copy_xclip") | ≤ 1.50 |
MD
)
echo "$report"
if [ "$WRITE" = "--write" ]; then echo "$report" > docs/benchmarks-x11.md; fi
