#!/usr/bin/env bash
# The history at scale (issue #40): histories of 1k, 10k, 100k and 1M entries of mixed text,
# Markdown, HTML and small pictures (scripts/history-corpus.py, imported through `pbctl history
# import`), each measured for the operations users run: the newest 100 listed warm and cold, the
# oldest entry pasted, a copy recorded (p50 and p99: right after the import and again once the
# history settled), one entry deleted, plain searches that find nothing for each kind of needle (a
# rare word, common words, a URL, a UUID, one character) and regular expression searches, the import
# and export themselves; peak memory of every command; bytes and inodes per entry; at 10,000 entries
# the same plain searches in CopyQ holding the same texts (when copyq and xvfb-run are installed).
# Prints a Markdown section ("## History at scale") for docs/benchmarks.md (`make bench`, section
# history).
#
#   scripts/bench-history.sh PBCTL_BINARY
#
# Environment: HISTORY_SIZES (default "1000 10000 100000 1000000"); HISTORY_WORK, a folder on disk
# (not a tmpfs: cold reads must reach the disk) for the histories and the corpus (default under
# /var/tmp; a corpus already there is reused); BENCH_RUNS (hyperfine runs, default 20).
# Cold reads drop the page cache (/proc/sys/vm/drop_caches), which needs root; without it the cold
# column says so.
set -euo pipefail
PBCTL=${1:?usage: scripts/bench-history.sh PBCTL_BINARY}
[ -x "$PBCTL" ] || { echo "bench-history: $PBCTL is not an executable" >&2; exit 1; }
for tool in hyperfine python3; do
    command -v $tool >/dev/null || { echo "bench-history: $tool is missing (make bench installs it)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench-history: GNU time is missing (apt-get install time)" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/.." && pwd)
sizes=${HISTORY_SIZES:-1000 10000 100000 1000000}
runs=${BENCH_RUNS:-20}
root=${HISTORY_WORK:-/var/tmp/pbctl-bench-history}
mkdir -p "$root"
work=$(mktemp -d "$root/run.XXXXXX")
copyq_server=
trap '[ -n "$copyq_server" ] && kill -- "-$copyq_server" 2>/dev/null; rm -rf "$work"' EXIT
unset DISPLAY WAYLAND_DISPLAY
export PBCTL_BACKEND=store PBCTL_TYPES_PATH=/nonexistent XDG_CONFIG_HOME=$work/config XDG_CACHE_HOME=$work/cache
mkdir -p "$work/config/pbctl"
# Bounds far enough for a million entries.
printf 'history.max-entries = 1000000\nhistory.max-bytes = 1000G\n' > "$work/config/pbctl/config"
source "$repo/scripts/bench-lib.sh"
HF_SHELL=
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
can_drop=0
[ -w /proc/sys/vm/drop_caches ] && can_drop=1
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }

largest=0
for n in $sizes; do [ "$n" -gt "$largest" ] && largest=$n; done
corpus=$root/corpus-$largest.jsonl
if [ ! -s "$corpus" ]; then
    echo "bench-history: writing a corpus of $largest entries" >&2
    python3 "$repo/scripts/history-corpus.py" "$largest" > "$corpus.partial"
    mv "$corpus.partial" "$corpus"
fi

# The plain searches: each kind of needle, none found in the corpus (checked below).
needle_keys="rare common url uuid char charu"
declare -A needle=(
    [rare]="zqxjkvnomatch"
    [common]="def return"
    [url]="https://example.org/nomatch/1"
    [uuid]="0f8e2a4c-5b7d-4e1f-9a3b-6c2d8e0f1a2b"
    [char]="@"
    [charu]="§"
)
declare -A needle_label=(
    [rare]="a rare word"
    [common]="common words"
    [url]="a URL"
    [uuid]="a UUID"
    [char]="one character"
    [charu]="one character outside ASCII"
)

# CopyQ 6.4 beside pbctl (at 10,000 entries): a private server (its own HOME and configuration, on a
# private Xvfb display) holding the same entries' plain texts (the pictures have none), added in
# batches by its own script; then each needle searched as CopyQ searches its items, with
# `ItemSelection().select(/needle/i, mimeText)` (its C++ loop over the tab's items matching the text
# case-insensitively), one `copyq eval` process per search, timed as pbctl's are.
copyq_compare() {  # N INPUT
    local n=$1 input=$2 cq=$work/copyq key
    if ! command -v copyq >/dev/null || ! command -v xvfb-run >/dev/null; then
        row[copyq_note]="CopyQ not compared: copyq or xvfb-run is missing."
        return 0
    fi
    mkdir -p "$cq/config" "$cq/data" "$cq/run"; chmod 700 "$cq/run"
    local cqenv=(env HOME=$cq XDG_CONFIG_HOME=$cq/config XDG_DATA_HOME=$cq/data XDG_RUNTIME_DIR=$cq/run)
    # In a process group of its own (setsid), stopped whole: xvfb-run, Xvfb and CopyQ's processes.
    setsid "${cqenv[@]}" xvfb-run -a -s "-screen 0 640x480x24" copyq > "$cq/server.log" 2>&1 &
    local server=$! tries=0
    copyq_server=$server
    until "${cqenv[@]}" timeout 5 copyq eval 'print(1)' >/dev/null 2>&1; do
        tries=$((tries + 1))
        if [ "$tries" -gt 40 ]; then
            row[copyq_note]="CopyQ not compared: its server did not start ($(tail -1 "$cq/server.log"))."
            kill -- "-$server" 2>/dev/null || true
            copyq_server=
            return 0
        fi
        sleep 0.5
    done
    python3 - "$input" "$cq/texts.json" <<'PY'
import base64, json, sys
texts = []
for line in open(sys.argv[1]):
    text = json.loads(line)["representations"].get("text/plain;charset=utf-8")
    if text is not None:
        texts.append(base64.b64decode(text).decode("utf-8", "replace"))
json.dump(texts, open(sys.argv[2], "w"))
PY
    local held
    held=$("${cqenv[@]}" timeout 600 copyq eval '
        config("maxitems", 100000);
        var f = new File(str(arguments[1])); f.openReadOnly(); var texts = JSON.parse(str(f.readAll())); f.close();
        for (var i = 0; i < texts.length; i += 500) add.apply(this, texts.slice(i, i + 500));
        print(size())' "$cq/texts.json")
    for key in $needle_keys; do
        local pattern found
        pattern=$(python3 -c 'import re, sys; print(re.escape(sys.argv[1]))' "${needle[$key]}")
        found=$("${cqenv[@]}" copyq eval 'print(ItemSelection().select(new RegExp(str(arguments[1]), "i"), mimeText).length)' "$pattern")
        [ "$found" = 0 ] || echo "bench-history: CopyQ found $found items for '${needle[$key]}'" >&2
        "${cqenv[@]}" hyperfine -N -i --warmup 2 --runs "$runs" --export-json "$work/copyq$key.1.json" \
            "copyq eval 'print(ItemSelection().select(new RegExp(str(arguments[1]), \"i\"), mimeText).length)' '$pattern'" >/dev/null 2>&1
        row[copyq_$key]=$(ms "$(median "copyq$key" 0)")
    done
    row[copyq_note]="CopyQ $(copyq --version 2>/dev/null | awk 'NR == 1 { print $NF }') held the $held texts of the $n entries (its tab's \`maxitems\` raised; the pictures left out)."
    "${cqenv[@]}" timeout 10 copyq exit >/dev/null 2>&1 || true
    sleep 1
    kill -- "-$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    copyq_server=
}

# Distinct small text files for the copies (a copy of content already there would be a move).
mkdir -p "$work/copies"
python3 - "$work/copies" <<'PY'
import os, sys
for i in range(800):
    open(os.path.join(sys.argv[1], "c%03d.txt" % i), "w").write("bench copy %d %s\n" % (i, os.urandom(8).hex()))
PY

# copies N FIRST LABEL: 200 copies recorded (files FIRST.. of the copies), each new content; with
# "deletes", then 20 deletes of the newest entry. Sets row[LABEL-p50,N], row[LABEL-p99,N] (and row[delete,N]).
copies() {
    python3 - "$PBCTL" "$work/copies" "$work/times$1" "$2" "${4:-}" <<'PY'
import os, subprocess, sys, time
pbctl, folder, out, first, deletes_too = sys.argv[1:]
times = []
for name in sorted(os.listdir(folder))[int(first):int(first) + 200]:
    start = time.perf_counter()
    subprocess.run([pbctl, "copy", os.path.join(folder, name)], check=True)
    times.append(time.perf_counter() - start)
deletes = []
for k in range(20 if deletes_too else 0):
    newest = subprocess.run([pbctl, "history", "--limit", "1"], check=True, capture_output=True, text=True).stdout.split("\t")[0]
    start = time.perf_counter()
    subprocess.run([pbctl, "history", "delete", newest], check=True)
    deletes.append(time.perf_counter() - start)
times.sort(); deletes.sort()
open(out, "w").write("%f %f %f\n" % (times[len(times) // 2], times[int(len(times) * 0.99) - 1], deletes[len(deletes) // 2] if deletes else 0))
PY
    local p50 p99 del
    read -r p50 p99 del < "$work/times$1"
    row[$3-p50,$1]=$(ms "$p50"); row[$3-p99,$1]=$(ms "$p99")
    [ -n "${4:-}" ] && row[delete,$1]=$(ms "$del")
    return 0
}

declare -A row
for n in $sizes; do
    echo "bench-history: $n entries" >&2
    export PBCTL_HISTORY=$work/h$n PBCTL_STORE=$work/s$n
    head -n "$n" "$corpus" > "$work/in.jsonl"
    # Import: wall time and peak memory (one run).
    start=$(date +%s.%N)
    imp_rss=$(/usr/bin/time -f %M "$PBCTL" history import "$work/in.jsonl" 2>&1 >/dev/null | tail -1)
    row[import,$n]=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }')
    count=$("$PBCTL" history --json --limit 1 >/dev/null && "$PBCTL" history | wc -l)
    [ "$count" -eq "$n" ] || { echo "bench-history: $count entries listed, $n imported" >&2; exit 1; }
    # Export: the same bytes back (the corpus is written as export writes).
    start=$(date +%s.%N)
    exp_rss=$(/usr/bin/time -f %M "$PBCTL" history export 2>&1 > "$work/out.jsonl" | tail -1)
    row[export,$n]=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }')
    cmp -s "$work/in.jsonl" "$work/out.jsonl" && row[roundtrip,$n]="identical" || row[roundtrip,$n]="**differs**"
    rm -f "$work/out.jsonl"
    # Copies recorded right after the import (only the reads above between them and it): what a
    # user's next copies meet.
    copies "$n" 0 fresh
    [ "$n" = 10000 ] && copyq_compare "$n" "$work/in.jsonl"
    rm -f "$work/in.jsonl"
    oldest=$("$PBCTL" history --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["id"])' 2>/dev/null || echo 1)
    # Warm: hyperfine after warm-ups.
    hf list$n "$runs" 3 "$PBCTL history --limit 100"
    row[list,$n]=$(ms "$(median list$n 0)")
    hf paste$n "$runs" 3 "$PBCTL history paste $oldest"
    row[paste,$n]=$(ms "$(median paste$n 0)")
    for key in $needle_keys; do
        found=$({ "$PBCTL" history search "${needle[$key]}" || true; } | wc -l)
        [ "$found" = 0 ] || echo "bench-history: pbctl found $found entries for '${needle[$key]}'" >&2
        hyperfine -N -i --warmup 2 --runs "$runs" --export-json "$work/search$key$n.1.json" "$PBCTL history search '${needle[$key]}'" >/dev/null 2>&1
        row[search$key,$n]=$(ms "$(median "search$key$n" 0)")
    done
    hyperfine -N -i --warmup 1 --runs 5 --export-json "$work/regexlit$n.1.json" "$PBCTL history search --regex ERR-[0-9]{6}-zq" >/dev/null 2>&1
    row[regexlit,$n]=$(ms "$(median regexlit$n 0)")
    hyperfine -N -i --warmup 1 --runs 3 --export-json "$work/regex$n.1.json" "$PBCTL history search --regex [0-9]{9}[a-z]{9}" >/dev/null 2>&1
    row[regex,$n]=$(ms "$(median regex$n 0)")
    # Copies recorded again, the history settled (after the searches above); then deletes of one entry.
    copies "$n" 200 settled deletes
    # Cold (last: what follows a dropped cache is slow too): the page cache dropped before each run.
    if [ "$can_drop" = 1 ]; then
        hyperfine -N --runs 5 --prepare "sh -c 'sync; echo 3 > /proc/sys/vm/drop_caches'" --export-json "$work/cold$n.1.json" \
            "$PBCTL history --limit 100" >/dev/null 2>&1
        row[cold,$n]=$(ms "$(median cold$n 0)")
    else
        row[cold,$n]="(not root)"
    fi
    # Peak memory of each command; the largest.
    peak=$imp_rss
    for command in "history --limit 100" "history paste $oldest" "history search zqxjkvnomatch" "history search @" "history search --regex [0-9]{9}[a-z]{9}"; do
        m=$(rss "$PBCTL" $command || true)
        [ "${m:-0}" -gt "$peak" ] && peak=$m
    done
    [ "$exp_rss" -gt "$peak" ] && peak=$exp_rss
    row[memory,$n]="$(mib "$peak") MiB"
    bytes=$(du -sb "$PBCTL_HISTORY" | cut -f1)
    inodes=$(find "$PBCTL_HISTORY" | wc -l)
    row[bytes,$n]=$(awk -v b="$bytes" -v n="$n" 'BEGIN { printf "%.0f B", b / n }')
    row[inodes,$n]=$(awk -v i="$inodes" -v n="$n" 'BEGIN { printf "%.4f", i / n }')
    rm -rf "$PBCTL_HISTORY" "$PBCTL_STORE"
done

growth() {  # the 10k → largest ratio of a millisecond row
    local key=$1 a=${row[$1,10000]:-} b=${row[$1,$largest]:-}
    [ -n "$a" ] && [ -n "$b" ] && [ "$largest" -gt 10000 ] && ratio "$b" "$a" || echo ""
}
header="| at N entries |"; rule="|---|"
for n in $sizes; do header="$header $n |"; rule="$rule---|"; done
echo "## History at scale"
echo
echo "\`pbctl history\` on histories of N entries made by \`history import\` of \`scripts/history-corpus.py N\` (55 % plain text of"
echo "a median of about 40 bytes and a long tail, URLs, UUIDs, code, words outside ASCII, and 1 in 1,000 entries a text of"
echo "66-160 KB, longer than the search index keeps; 15 % Markdown with its plain text, 20 % HTML with its plain text, 10 %"
echo "small PNG pictures; every entry distinct), on $(df -T "$root" | awk 'NR == 2 { print $2 }') at \`$root\`. Release binary; hyperfine medians of"
echo "$runs runs (regular expressions: 5 and 3); copies and deletes timed one process each from Python (their start included)."
echo
echo "$header growth 10k → $largest | Bar |"
echo "$rule---|---|"
line() {  # key label bar
    local out="| $2 |" n
    for n in $sizes; do out="$out ${row[$1,$n]:-} |"; done
    echo "$out $(growth "$1") | $3 |"
}
line list "newest 100 listed, warm (ms)" "≤ 50 ms; growth ≤ 1.5×"
line cold "the same, page cache dropped (ms)" "≤ 250 ms"
line paste "\`history paste\` of the oldest entry (ms)" "≤ 20 ms; growth ≤ 1.5×"
line fresh-p50 "a copy recorded right after the import, p50 of 200 (ms)" ""
line fresh-p99 "a copy recorded right after the import, p99 of 200 (ms)" "≤ 30 ms; growth ≤ 1.5×"
line settled-p50 "a copy recorded once settled, p50 of 200 (ms)" ""
line settled-p99 "a copy recorded once settled, p99 of 200 (ms)" "≤ 30 ms; growth ≤ 1.5×"
line delete "one entry deleted, median of 20 (ms)" ""
for key in $needle_keys; do
    line "search$key" "plain search, no match: ${needle_label[$key]} \`${needle[$key]}\` (ms)" "≤ 300 ms"
done
line regexlit "\`--regex 'ERR-[0-9]{6}-zq'\`, no match (ms; its literal narrows through the index)" ""
line regex "\`--regex '[0-9]{9}[a-z]{9}'\`, no match (ms; no literal: every text read)" "≤ 3 s"
line import "import (one run)" "1M in < 5 min"
line export "export (one run)" ""
line roundtrip "export of the import, against its input" "identical"
line memory "peak memory, largest of every command above" "≤ 64 MiB"
line bytes "bytes on disk per entry" ""
line inodes "inodes per entry" "≤ 2"
echo
if [ -n "${row[copyq_note]:-}" ]; then
    echo "Beside CopyQ at 10,000 entries (the same needles; CopyQ's time is one \`copyq eval\` process asking its server"
    echo "for \`ItemSelection().select(/needle/i, mimeText)\`, CopyQ's own case-insensitive match over its items' text):"
    echo
    echo "| plain search, no match | pbctl (ms) | CopyQ (ms) | pbctl / CopyQ | Bar |"
    echo "|---|---|---|---|---|"
    for key in $needle_keys; do
        if [ -n "${row[copyq_$key]:-}" ]; then
            echo "| ${needle_label[$key]} | ${row[search$key,10000]} | ${row[copyq_$key]} | $(ratio "${row[search$key,10000]}" "${row[copyq_$key]}") | ≤ 0.5 |"
        fi
    done
    echo
    echo "${row[copyq_note]}"
    echo
fi
echo "- A copy here is \`pbctl copy FILE\` of a small text file: the store written and the entry recorded, one process."
echo "- The database is SQLite in WAL mode; \`history.db\`, its \`-wal\` and \`-shm\`, \`lock\` and \`blobs/\` (representations from"
echo "  128 KiB, none in this corpus) are the files; bytes per entry count all of them."
echo "- Run $(date -u '+%Y-%m-%d %H:%M UTC') (\`make bench\` section history), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
echo "  The first copies of each size run right after its import; the settled ones after its export, listings and searches."
echo "- Cold means \`echo 3 > /proc/sys/vm/drop_caches\` before each of 5 runs."
echo
