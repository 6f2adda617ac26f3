#!/usr/bin/env bash
# X11 selection benchmarks (issue #5's performance targets): pbctl against xsel and xclip, side by side
# in one run under a private Xvfb, every reader reading the same owner. Prints a Markdown section
# ("## X11 selections") on stdout; `make bench` (scripts/bench.sh, section x11) puts it into
# docs/benchmarks.md.
#
#   scripts/bench-x11.sh PBCTL_BINARY
#
# Environment: BENCH_RUNS (hyperfine runs of the small paste, default 100; the large measurements use
# fewer). Needs: Xvfb, xclip, xsel, hyperfine, python3, GNU time (/usr/bin/time).
set -euo pipefail
PBCTL=${1:?usage: scripts/bench-x11.sh PBCTL_BINARY}
[ -x "$PBCTL" ] || { echo "bench-x11: $PBCTL is not an executable" >&2; exit 1; }
for tool in Xvfb xclip xsel hyperfine python3; do
    command -v $tool >/dev/null || { echo "bench-x11: $tool is missing (make bench installs it)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench-x11: GNU time is missing (apt-get install time)" >&2; exit 1; }
small_runs=${BENCH_RUNS:-100}
[ "$small_runs" -lt 30 ] && small_runs=30

work=$(mktemp -d "${TMPDIR:-/tmp}/pbctl-bench-x11.XXXXXX")
exec 3> "$work/displayfd"
Xvfb -displayfd 3 -nolisten tcp -noreset >/dev/null 2>&1 &
xvfb=$!
exec 3>&-
cleanup() {
    # The background owners exit when they lose the selection, or with the server.
    kill "$xvfb" 2>/dev/null || true
    wait "$xvfb" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$work/displayfd" ] && break; sleep 0.05; done
[ -s "$work/displayfd" ] || { echo "bench-x11: Xvfb did not start" >&2; exit 1; }
export DISPLAY=:$(head -1 "$work/displayfd")
export PBCTL_BACKEND=x11
# No declared types from the user's configuration: the same pbctl for everyone.
export PBCTL_TYPES_PATH=/nonexistent

# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

echo "bench-x11: DISPLAY=$DISPLAY, small paste" >&2
# 1. Small paste: a 12-byte clipboard, owned first by pbctl's background owner, then by xclip.
printf 'hello world\n' > "$work/small.txt"
"$PBCTL" copy --type txt "$work/small.txt"
[ "$("$PBCTL" paste)" = "hello world" ] || { echo "bench-x11: pbctl paste of the small clipboard is wrong" >&2; exit 1; }
hf small-pbctl "$small_runs" 10 "$PBCTL paste" "xsel -b -o" "xclip -o -selection clipboard"
xclip -i -selection clipboard "$work/small.txt"
hf small-xclip "$small_runs" 10 "$PBCTL paste" "xsel -b -o" "xclip -o -selection clipboard"
sp=$(median small-pbctl 0); ss=$(median small-pbctl 1); sc=$(median small-pbctl 2)
xp=$(median small-xclip 0); xs=$(median small-xclip 1); xc=$(median small-xclip 2)
hf startup 30 5 "$PBCTL --version"
su=$(median startup 0)

echo "bench-x11: 128 MiB paste" >&2
# 2. 128 MiB paste (base64 text, so every tool treats it as text), owned by pbctl (xclip's own INCR
# chunks are small, and xsel cannot serve it).
head -c 100663296 /dev/urandom | base64 -w 120 | head -c 134217728 > "$work/big.txt" || true
size=$(stat -c %s "$work/big.txt")
"$PBCTL" copy --type txt "$work/big.txt"
exact() { { timeout 60 "$@" || true; } | cmp -s - "$work/big.txt" && echo yes || echo NO; }
exact_pbctl=$(exact "$PBCTL" paste)
exact_xsel=$(exact xsel -b -o)
exact_xclip=$(exact xclip -o -selection clipboard)
hf big 5 1 "$PBCTL paste" "xsel -b -o" "xclip -o -selection clipboard"
bp=$(median big 0); bs=$(median big 1); bc=$(median big 2)
rss_pbctl=$(/usr/bin/time -f %M "$PBCTL" paste 2>&1 >/dev/null | tail -1)
rss_xclip=$(/usr/bin/time -f %M xclip -o -selection clipboard 2>&1 >/dev/null | tail -1)

echo "bench-x11: 8 MiB Markdown copy" >&2
# 3. Copy of an 8 MiB Markdown file by path: pbctl copy (conversions lazy) vs xclip -i.
for i in $(seq 90000); do
    printf '## Section %d\n\nSome *emphasis*, a [link](https://example.com/%d) and `code`.\n\n- item\n- item\n\n' $i $i
done | head -c 8388608 > "$work/doc.md" || true
dsize=$(stat -c %s "$work/doc.md")
hf copy 10 2 "$PBCTL copy $work/doc.md" "xclip -i -selection clipboard -t text/markdown $work/doc.md"
cp_=$(median copy 0); cx=$(median copy 1)
"$PBCTL" copy "$work/doc.md"
copy_exact=$(xclip -o -selection clipboard -t text/markdown | cmp -s - "$work/doc.md" && echo yes || echo NO)
copy_html=$({ xclip -o -selection clipboard -t text/html || true; } | head -c 18 || true)
"$PBCTL" clear || true

small_ratio=$(ratio "$sp" "$ss")
big_ratio=$(ratio "$bc" "$bp")
rss_ratio=$(ratio "$((rss_pbctl * 1024))" "$size")
copy_ratio=$(ratio "$cp_" "$cx")
cat <<MD
## X11 selections

Command: \`make bench\` (scripts/bench.sh, section \`x11\`: scripts/bench-x11.sh), run $(date -u '+%Y-%m-%d %H:%M UTC'),
under a private Xvfb. Wall-clock **medians** of \`hyperfine -N\` (no shell); every reader reads the same
owner in the same run. MB = 10^6 bytes. pbctl: $(file -b "$PBCTL" | cut -d, -f1-2), $(( $(stat -c %s "$PBCTL") / 1048576 )) MiB.

| measurement | pbctl | xsel | xclip | ratio | target | |
|---|---:|---:|---:|---:|---|---|
| paste of a 12-byte clipboard owned by pbctl (median of $small_runs, ms) | $(ms "$sp") | $(ms "$ss") | $(ms "$sc") | pbctl ÷ xsel = $small_ratio (÷ xclip = $(ratio "$sp" "$sc")) | ≤ 0.60 (issue #31) | $(verdict "$small_ratio" 0.6 le) |
| paste of a 12-byte clipboard owned by xclip (median of $small_runs, ms) | $(ms "$xp") | $(ms "$xs") | $(ms "$xc") | pbctl ÷ xsel = $(ratio "$xp" "$xs") (÷ xclip = $(ratio "$xp" "$xc")) | | |
| paste of $((size / 1048576)) MiB owned by pbctl (median of 5, ms) | $(ms "$bp") | $(ms "$bs") | $(ms "$bc") | throughput pbctl ÷ xclip = $big_ratio ($(mbps "$size" "$bp") vs $(mbps "$size" "$bc") MB/s; xsel $(mbps "$size" "$bs")) | ≥ 2.00 | $(verdict "$big_ratio" 2 ge) |
| peak memory of that paste (MiB; \`/usr/bin/time -f %M\`) | $((rss_pbctl / 1024)) | | $((rss_xclip / 1024)) | pbctl ÷ payload = $rss_ratio | ≤ 1.50 | $(verdict "$rss_ratio" 1.5 le) |
| copy of an $((dsize / 1048576)) MiB Markdown file by path (median of 10, ms) | $(ms "$cp_") | | $(ms "$cx") | pbctl ÷ xclip -i = $copy_ratio | ≤ 1.50 | $(verdict "$copy_ratio" 1.5 le) |

- For reference, \`pbctl --version\` (process start-up alone) takes $(ms "$su") ms (median of 30).
- Byte-exact 128 MiB pastes: pbctl $exact_pbctl, xsel $exact_xsel, xclip $exact_xclip. (xsel fails on
  owners whose INCR chunks exceed the 4,000,000 bytes it reads per GetProperty; pbctl's owner sends
  2 MiB chunks, so xsel is measured here too.)
- After \`pbctl copy doc.md\`, \`xclip -o -t text/markdown\` gives the file back byte-exact: $copy_exact;
  \`-t text/html\` (converted on that first request) starts with \`$(printf '%s' "$copy_html" | tr -d '\n')\`.
- Commands: \`pbctl paste\` / \`xsel -b -o\` / \`xclip -o -selection clipboard\`; \`pbctl copy FILE\` /
  \`xclip -i -selection clipboard -t text/markdown FILE\`. Both owners are the copying process's forked
  child, detached; \`pbctl copy\` returns once its owner holds the selection. pbctl is a fully static
  executable (\`make release\`).

MD
