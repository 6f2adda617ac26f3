#!/usr/bin/env bash
# `make test`, last step: the release binary, the one `make install` ships, is a fully static
# executable (Makefile RELEASE_FLAGS). The unit and integration tests drive the debug build, so this
# checks what only the release link can break: that it is static, that it starts, that the store
# works (the demo of `make run`), and that it reaches an X server over a Unix socket and over TCP
# (libxcb resolves TCP displays with getaddrinfo, which a static glibc program must still manage).
#
#   scripts/release-smoke.sh PBCTL_BINARY
set -euo pipefail
pbctl=${1:?usage: scripts/release-smoke.sh PBCTL_BINARY}
fail() { echo "release-smoke: $*" >&2; exit 1; }
[ -x "$pbctl" ] || fail "$pbctl is not an executable"
if readelf -d "$pbctl" 2>/dev/null | grep -q NEEDED; then
    fail "$pbctl loads shared libraries: $(readelf -d "$pbctl" | grep NEEDED | tr -s ' ' | cut -d' ' -f6 | tr '\n' ' ')"
fi
"$pbctl" --version >/dev/null || fail "pbctl --version failed"

work=$(mktemp -d "${TMPDIR:-/tmp}/pbctl-smoke.XXXXXX")
servers=()
cleanup() {
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
# A private store, so the smoke test never touches the user's pasteboards.
export XDG_RUNTIME_DIR="$work/runtime" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
mkdir -m 0700 "$XDG_RUNTIME_DIR"
PBCTL_BACKEND=store scripts/demo.sh "$pbctl" > "$work/demo.out" 2>&1 || { cat "$work/demo.out" >&2; fail "the store demo failed"; }
grep -q '<h1>Weekly report</h1>' "$work/demo.out" || { cat "$work/demo.out" >&2; fail "the store demo printed no HTML"; }

# Provenance: the extended attribute, written by direct calls (a dlsym lookup found nothing in this
# static binary and skipped it silently).
printf '# Provenance\n' > "$work/doc.md"
PBCTL_BACKEND=store "$pbctl" copy "$work/doc.md" || fail "copy of a Markdown file failed"
PBCTL_BACKEND=store "$pbctl" paste --as markdown -o "$work/out.md" || fail "paste -o failed"
if getfattr -n user.x-document-source "$work/out.md" >/dev/null 2>&1 || setfattr -n user.probe -v 1 "$work/doc.md" 2>/dev/null; then
    getfattr -n user.x-document-source "$work/out.md" >/dev/null 2>&1 || fail "paste -o wrote no user.x-document-source attribute"
else
    echo "release-smoke: $work has no user extended attributes; provenance not checked"
fi

# Every reader -> writer pair on adversarial documents of 1 MB (deep nesting, delimiter runs, wide
# tables…), counted in CPU seconds so a loaded machine does not fail it. The bound here is 3 s: a
# quadratic pair takes far longer; docs/reliability.md records the run against 1 s.
python3 scripts/pathological-pairs.py "$pbctl" "${PATHOLOGICAL_LIMIT:-3}" > "$work/pathological.out" 2>&1 \
    || { grep -E 'FAIL|pairs' "$work/pathological.out" >&2; fail "a conversion is not linear"; }
tail -1 "$work/pathological.out"

# start_xvfb VAR EXTRA-ARGS...: starts a private Xvfb and puts its display number in VAR.
start_xvfb() {
    local var=$1 fifo; shift
    fifo="$work/displayfd.$var"
    exec 3> "$fifo"
    Xvfb -displayfd 3 "$@" >/dev/null 2>&1 &
    servers+=($!)
    exec 3>&-
    for _ in $(seq 100); do [ -s "$fifo" ] && break; sleep 0.05; done
    [ -s "$fifo" ] || fail "Xvfb did not start"
    printf -v "$var" '%s' "$(head -1 "$fifo")"
}
start_xvfb local -nolisten tcp
start_xvfb tcp -listen tcp
export PBCTL_BACKEND=x11 PBCTL_X11_TIMEOUT=5
for display in ":$local" "localhost:$tcp"; do
    export DISPLAY=$display
    printf 'smoke via %s\n' "$display" | "$pbctl" copy --type txt || fail "copy on $display failed"
    [ "$(xclip -o -selection clipboard)" = "smoke via $display" ] || fail "xclip read the wrong text on $display"
    printf '<p>owned <b>by</b> xclip</p>' | xclip -i -selection clipboard -t text/html 2>/dev/null
    [ "$("$pbctl" paste --plain)" = "owned by xclip" ] || fail "pbctl paste --plain on $display"
    printf 'xclip text' | xclip -i -selection clipboard 2>/dev/null
    [ "$("$pbctl" paste)" = "xclip text" ] || fail "pbctl paste on $display"
    "$pbctl" types | grep -q '^public.utf8-plain-text ' || fail "pbctl types on $display"
done
echo "release-smoke: $pbctl is static; store, Unix-socket and TCP displays work"
