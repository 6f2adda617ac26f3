#!/usr/bin/env bash
# `make run`: a copy/paste round trip a new user can watch, through the private store (no display
# needed). It uses its own pasteboard name so it never touches your clipboard.
set -euo pipefail
pbctl=${1:-pbctl}
board=pbctl-demo
step() { printf '\n$ %s\n' "$*"; }

step "printf '# Weekly report\n\n* shipped the *store*\n* next: [X11](https://x.org)\n' | pbctl copy -p $board --type markdown"
printf '# Weekly report\n\n* shipped the *store*\n* next: [X11](https://x.org)\n' | "$pbctl" copy -p "$board" --type markdown
step "pbctl types -p $board"
"$pbctl" types -p "$board"
step "pbctl paste -p $board"
"$pbctl" paste -p "$board"
step "pbctl paste -p $board --plain          # rendered, no markup"
"$pbctl" paste -p "$board" --plain
step "pbctl paste -p $board --as html"
"$pbctl" paste -p "$board" --as html
step "pbctl paste -p $board --accept public.rtf,public.html | head -c 300   # what LibreOffice would get"
"$pbctl" paste -p "$board" --accept public.rtf,public.html | head -c 300; echo
step "pbctl info -p $board"
"$pbctl" info -p "$board"
step "pbctl convert --from gfm --to html <<< '**bold** and ~~gone~~'"
"$pbctl" convert --from gfm --to html <<< '**bold** and ~~gone~~'
step "pbctl clear -p $board"
"$pbctl" clear -p "$board"
printf '\nDone. Try: echo hi | %s copy && %s paste\n' "$pbctl" "$pbctl"
