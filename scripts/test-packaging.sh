#!/usr/bin/env bash
# make test, last step: what a user installs, tested for real with the release binary.
# - make install DESTDIR=… PREFIX=/usr puts every file in its place, and make uninstall removes exactly those;
# - the manual page passes `man --warnings` and names every command and option `pbctl help` shows;
# - the bash, zsh and fish completions complete commands, options and option values in those shells;
# - systemd-analyze verify accepts the user unit;
# - make deb builds a package lintian finds no error in, which `dpkg -x` unpacks into a working pbctl.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "test-packaging: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pbctl-packaging.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/root"

# install / uninstall
make --no-print-directory install-files DESTDIR="$root" PREFIX=/usr >/dev/null
for file in usr/bin/pbctl usr/bin/pbcopy usr/bin/pbpaste usr/lib/pbctl/compat/xclip usr/lib/pbctl/compat/wl-paste usr/share/man/man1/pbctl.1 usr/share/man/man1/pbcopy.1 \
    usr/share/man/man1/pbpaste.1 usr/share/bash-completion/completions/pbctl usr/share/zsh/vendor-completions/_pbctl \
    usr/share/fish/vendor_completions.d/pbctl.fish usr/lib/systemd/user/pbctl-daemon.service \
    etc/xdg/autostart/pbctl-daemon.desktop usr/share/doc/pbctl/README.md; do
    [ -e "$root/$file" ] || [ -L "$root/$file" ] || fail "make install did not install /$file"
done
pbctl="$root/usr/bin/pbctl"
"$pbctl" --version | grep -q "^pbctl [0-9]" || fail "the installed pbctl does not run"
"$root/usr/bin/pbcopy" < /dev/null 2>/dev/null; true
# The xclip, xsel, wl-copy and wl-paste links: in pbctl's own folder, never in /usr/bin, and answering.
for tool in xclip xsel wl-copy wl-paste; do
    [ "$(readlink "$root/usr/lib/pbctl/compat/$tool")" = /usr/bin/pbctl ] || fail "make install did not link /usr/lib/pbctl/compat/$tool to /usr/bin/pbctl"
    [ ! -e "$root/usr/bin/$tool" ] || fail "make install put $tool in /usr/bin (the system's tool is not to be taken over)"
done
ln -s "$pbctl" "$work/xclip"
"$work/xclip" -version 2>&1 | grep -qx "xclip version 0.13" || fail "pbctl run as xclip does not answer as xclip"

# The manual: no groff warning, and every command and option of the help in it.
warnings=$(man --warnings -l "$root/usr/share/man/man1/pbctl.1" 2>&1 >/dev/null || true)
[ -z "$warnings" ] || fail "man --warnings: $warnings"
page=$(MANWIDTH=200 man -l "$root/usr/share/man/man1/pbctl.1" 2>/dev/null)
for command in $("$pbctl" help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'); do
    grep -q "^   $command\$" <<< "$page" || fail "the manual has no section for '$command'"
    for option in $("$pbctl" help "$command" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
        grep -qF -- "$option" <<< "$page" || fail "the manual does not mention $option (pbctl $command)"
    done
done

# Completions, each in its shell, with the installed pbctl first on PATH.
export PATH="$root/usr/bin:$PATH" PBCTL_STORE="$work/store" PBCTL_HISTORY="$work/history"
printf 'x' | pbctl copy -p scratchpad
bash_complete() {  # bash_complete WORD... : the candidates for the last word
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pbctl; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$root/usr/share/bash-completion/completions/pbctl" "$@"
}
bash_complete pbctl pa | grep -qx paste || fail "bash: pbctl pa<TAB> does not offer paste"
bash_complete pbctl paste --as h | grep -qx html || fail "bash: --as values"
bash_complete pbctl paste --ty | grep -qx -- --type || fail "bash: options of paste"
bash_complete pbctl copy --type public.ht | grep -qx public.html || fail "bash: type identifiers"
bash_complete pbctl copy --type text/ht | grep -qx text/html || fail "bash: MIME types"
bash_complete pbctl paste -p scr | grep -qx scratchpad || fail "bash: pasteboard names from the store"
bash_complete pbctl paste --backend s | grep -qx store || fail "bash: backends"
bash_complete pbctl completions f | grep -qx fish || fail "bash: completions' shells"

fish_complete() { fish -c "source '$root/usr/share/fish/vendor_completions.d/pbctl.fish'; complete -C '$1'" | cut -f1; }
fish_complete "pbctl pa" | grep -qx paste || fail "fish: pbctl pa<TAB> does not offer paste"
fish_complete "pbctl paste --as h" | grep -qx html || fail "fish: --as values"
fish_complete "pbctl paste --ty" | grep -qx -- --type || fail "fish: options of paste"
fish_complete "pbctl copy --type public.ht" | grep -qx public.html || fail "fish: type identifiers"
fish_complete "pbctl paste -p scr" | grep -qx scratchpad || fail "fish: pasteboard names"

# zsh: the completion function itself, run by zsh with the completion system's builtins recording
# what they are given (compadd filters by the typed prefix in a real session).
zsh_complete() {
    zsh -f -c 'compdef() { : }
        compadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done; [[ $1 == -- ]] && shift; print -rl -- "$@" }
        _files() { print -r -- "<files>" }
        source "$1"; shift; words=("$@"); CURRENT=$#; _pbctl' _ "$root/usr/share/zsh/vendor-completions/_pbctl" "$@"
}
zsh_complete pbctl pa | grep -qx paste || fail "zsh: pbctl pa<TAB> does not offer paste"
zsh_complete pbctl paste --as "" | grep -qx html || fail "zsh: --as values"
zsh_complete pbctl paste --ty | grep -qx -- --type || fail "zsh: options of paste"
zsh_complete pbctl copy --type "" | grep -qx public.html || fail "zsh: type identifiers"
zsh_complete pbctl copy "" | grep -qx "<files>" || fail "zsh: files for copy"

# The systemd user unit (pointing at the staged binary, since /usr/bin/pbctl may not exist here).
sed "s|ExecStart=/usr/bin/pbctl|ExecStart=$pbctl|" "$root/usr/lib/systemd/user/pbctl-daemon.service" > "$work/pbctl-daemon.service"
grep -q "^ExecStart=$pbctl daemon$" "$work/pbctl-daemon.service" || fail "the unit's ExecStart is not /usr/bin/pbctl daemon"
mkdir -m 0700 "$work/runtime"
XDG_RUNTIME_DIR="$work/runtime" systemd-analyze --user verify --man=no "$work/pbctl-daemon.service" \
    || fail "systemd-analyze --user verify rejects pbctl-daemon.service"

make --no-print-directory uninstall DESTDIR="$root" PREFIX=/usr >/dev/null
left=$(find "$root" -type f -o -type l)
[ -z "$left" ] || fail "make uninstall left: $left"

# The Debian package.
deb=$(make --no-print-directory -s deb 2>/dev/null | tail -1)
[ -f "$deb" ] || fail "make deb built nothing"
lintian_out=$(lintian --no-tag-display-limit "$deb" 2>&1 || true)
if grep -q '^E: ' <<< "$lintian_out"; then echo "$lintian_out" >&2; fail "lintian reports errors"; fi
dpkg-deb --field "$deb" Depends | grep -q . && fail "the package declares Depends"
dpkg -x "$deb" "$work/unpacked"
# The licence: Apache-2.0 at the root and in the package's copyright file.
grep -q "Apache License" LICENSE && grep -q "Version 2.0, January 2004" LICENSE || fail "LICENSE is not the Apache License 2.0"
grep -q "^License: Apache-2.0$" "$work/unpacked/usr/share/doc/pbctl/copyright" || fail "the package's copyright file does not say Apache-2.0"
grep -q "^License: NONE" "$work/unpacked/usr/share/doc/pbctl/copyright" && fail "the package's copyright file still says License: NONE"
"$work/unpacked/usr/bin/pbctl" --version | grep -q "^pbctl " || fail "the unpacked pbctl does not run"
printf 'from the package\n' | PBCTL_STORE="$work/deb-store" "$work/unpacked/usr/bin/pbctl" copy --backend store
[ "$(PBCTL_STORE="$work/deb-store" "$work/unpacked/usr/bin/pbctl" paste --backend store)" = "from the package" ] \
    || fail "the unpacked pbctl does not round-trip through its store"
[ "$(PBCTL_BACKEND=store PBCTL_STORE="$work/deb-store" "$work/unpacked/usr/lib/pbctl/compat/xclip" -o -selection clipboard)" = "from the package" ] \
    || fail "the unpacked /usr/lib/pbctl/compat/xclip does not paste as xclip"
echo "test-packaging: install/uninstall, manual, bash/zsh/fish completions, systemd unit and $(basename "$deb") (lintian: $(grep -c '^W: ' <<< "$lintian_out") warnings, no errors) all work"
