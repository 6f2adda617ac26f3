#!/usr/bin/env bash
# Writes scripts/startup.order: the functions and data pbctl's short commands touch, in the order they
# first touch them. The release link (Makefile RELEASE_FLAGS: lld with --symbol-ordering-file) lays
# these out side by side, so a 12-byte paste or copy maps and dirties few pages of the 20 MiB static
# binary: each page a process touches costs a page fault, and those faults were most of a small
# operation's time (docs/benchmarks.md, Store: start-up). Stale names are harmless (the linker skips
# them, the layout just gets less tight); run `make startup-order` again after large changes.
#
#   scripts/startup-order.sh PBCTL_BINARY [OUTPUT]
#
# The traced commands, most frequent first: the quick pastes (the store's; where Xvfb and sway are
# installed, X11 and Wayland of a clipboard owned by pbctl and by xclip/wl-copy), `--version`, Markdown to HTML by
# `convert` and by `paste --as html`; then
# copies and the full paste through the store, `types`, `history`, and a copy to X11. Needs valgrind
# (lackey) and binutils (nm, strip).
set -euo pipefail
PBCTL=${1:?usage: scripts/startup-order.sh PBCTL_BINARY [OUTPUT]}
repo=$(cd "$(dirname "$0")/.." && pwd)
output=${2:-$repo/scripts/startup.order}
for tool in valgrind nm strip python3; do
    command -v $tool >/dev/null || { echo "startup-order: $tool is missing (apt-get install valgrind binutils python3)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/pbctl-startup-order.XXXXXX)
chmod 0755 "$work"  # the headless sway runs as its own user and needs to reach its runtime folder
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; pkill -f "$work" 2>/dev/null || true; rm -rf "$work"' EXIT
# Valgrind cannot read this toolchain's DWARF; the symbol table is all the trace needs.
strip --strip-debug -o "$work/pbctl" "$PBCTL"
bin=$work/pbctl
export PBCTL_STORE=$work/store PBCTL_HISTORY=$work/history PBCTL_TYPES_PATH=/nonexistent PBCTL_BACKEND=store
unset DISPLAY WAYLAND_DISPLAY PBCTL_REMOTE TMUX
n=0
trace() {  # trace ARGS...: one traced run of the stripped copy, its trace kept in order
    n=$((n + 1))
    valgrind --tool=lackey --trace-mem=yes --log-file="$work/trace.$(printf %03d $n)" "$bin" "$@" >/dev/null 2>&1 </dev/null || true
}
printf 'hello world\n' > "$work/small.txt"
printf 'hello world\n' > "$work/note"
printf '# Title\n\nSome *text*.\n' > "$work/doc.md"
# The servers first, so the quick pastes (the most frequent commands, and the ones measured against
# cat, xsel and wl-paste) are traced first and their code and data come first, side by side.
x11=""
if command -v Xvfb >/dev/null && command -v xclip >/dev/null; then
    Xvfb -displayfd 3 -nolisten tcp -noreset >/dev/null 2>&1 3>"$work/displayfd" &
    pids+=($!)
    for _ in $(seq 100); do [ -s "$work/displayfd" ] && break; sleep 0.05; done
    [ -s "$work/displayfd" ] && x11=:$(head -1 "$work/displayfd")
fi
wayland=""
if command -v sway >/dev/null && command -v wl-copy >/dev/null; then
    if started=$("$repo/scripts/headless-sway.sh" "$work/runtime" 2>/dev/null); then
        pids+=("${started##* }")
        wayland=${started% *}
    fi
fi
# 1. The quick pastes: the store's, then X11 and Wayland of a clipboard owned by pbctl and by
#    xclip/wl-copy, then `--version` (the start-up alone).
"$bin" copy "$work/note"
trace paste
# (No subshells: `trace` numbers the runs.)
if [ -n "$x11" ]; then
    export DISPLAY=$x11
    unset PBCTL_BACKEND
    "$bin" copy "$work/small.txt"
    trace paste
    xclip -i -selection clipboard "$work/small.txt"
    trace paste
    unset DISPLAY
    export PBCTL_BACKEND=store
fi
if [ -n "$wayland" ]; then
    export WAYLAND_DISPLAY=$wayland
    unset PBCTL_BACKEND
    "$bin" copy "$work/small.txt"
    trace paste
    wl-copy < "$work/small.txt"
    trace paste
    pkill -f wl-copy 2>/dev/null || true
    unset WAYLAND_DISPLAY
    export PBCTL_BACKEND=store
fi
trace --version
# Markdown to HTML, `convert`'s quick way (taken only without PBCTL_BACKEND: pbctl/FastConvert.swift), from a file
# in both dialects and from standard input.
printf '%s\n' '# Title' '' 'Some *text*, `code`, a [link](http://example.com "t") & <b>raw</b> HTML, **strong** ~~struck~~.' '' \
    '- a list' '- [ ] a task' '' '> a quote' '' '| a | b |' '|---|---|' '| 1 | 2 |' '' '```swift' 'let x = 1 < 2' '```' '' \
    'A footnote[^1] and www.example.com.' '' '[^1]: The note.' > "$work/convert.md"
unset PBCTL_BACKEND
trace convert --from gfm --to html "$work/convert.md"
trace convert --from commonmark --to html "$work/convert.md"
n=$((n + 1)); valgrind --tool=lackey --trace-mem=yes --log-file="$work/trace.$(printf %03d $n)" "$bin" convert --from gfm --to html < "$work/convert.md" >/dev/null 2>&1 || true
export PBCTL_BACKEND=store
# A paste of Markdown as HTML, the quick way (Backends/FastPaste.swift: the store's item converted).
"$bin" copy "$work/convert.md"
trace paste --as html
# 2. Copies and the full paste through the store, then the listings.
trace copy "$work/note"
trace copy "$work/small.txt"
trace paste
n=$((n + 1)); printf 'piped text\n' | valgrind --tool=lackey --trace-mem=yes --log-file="$work/trace.$(printf %03d $n)" "$bin" copy >/dev/null 2>&1 || true
trace copy "$work/doc.md"
trace paste
trace paste --type public.html
trace types
trace history
# 3. A copy to X11.
if [ -n "$x11" ]; then
    export DISPLAY=$x11
    unset PBCTL_BACKEND
    trace copy "$work/small.txt"
fi
ls "$work"/trace.* >/dev/null
# The first line names the toolchain the symbols were traced with (lld reads it as a name it does not
# find, and skips it); release-smoke.sh holds a build of another toolchain to no page-fault bound.
{ echo "# $(swift --version 2>/dev/null | head -1)"; python3 "$repo/scripts/startup-order.py" "$bin" "$work"/trace.*; } > "$work/order"
mv "$work/order" "$output"
echo "startup-order: $(wc -l < "$output") symbols from $n traced runs in $output" >&2
