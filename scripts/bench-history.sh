#!/usr/bin/env bash
# The history at scale (issue #40): histories of 1k, 10k, 100k and 1M entries of mixed text,
# Markdown, HTML and small pictures (scripts/history-corpus.py, imported through `pbctl history
# import`), each measured for the operations users run: the newest 100 listed warm and cold, the
# oldest entry pasted, a copy recorded (p50 and p99), one entry deleted, a plain search and regular
# expression searches that find nothing, the import and export themselves; peak memory of every
# command; bytes and inodes per entry. Prints a Markdown section ("## History at scale") for
# docs/benchmarks.md (`make bench`, section history).
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
trap 'rm -rf "$work"' EXIT
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

# Distinct small text files for the copies (a copy of content already there would be a move).
mkdir -p "$work/copies"
python3 - "$work/copies" <<'PY'
import os, sys
for i in range(400):
    open(os.path.join(sys.argv[1], "c%03d.txt" % i), "w").write("bench copy %d %s\n" % (i, os.urandom(8).hex()))
PY

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
    rm -f "$work/out.jsonl" "$work/in.jsonl"
    oldest=$("$PBCTL" history --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["id"])' 2>/dev/null || echo 1)
    # Warm: hyperfine after warm-ups.
    hf list$n "$runs" 3 "$PBCTL history --limit 100"
    row[list,$n]=$(ms "$(median list$n 0)")
    hf paste$n "$runs" 3 "$PBCTL history paste $oldest"
    row[paste,$n]=$(ms "$(median paste$n 0)")
    hyperfine -N -i --warmup 2 --runs "$runs" --export-json "$work/search$n.1.json" "$PBCTL history search zqxjkvnomatch" >/dev/null 2>&1
    row[search,$n]=$(ms "$(median search$n 0)")
    hyperfine -N -i --warmup 1 --runs 5 --export-json "$work/regexlit$n.1.json" "$PBCTL history search --regex ERR-[0-9]{6}-zq" >/dev/null 2>&1
    row[regexlit,$n]=$(ms "$(median regexlit$n 0)")
    hyperfine -N -i --warmup 1 --runs 3 --export-json "$work/regex$n.1.json" "$PBCTL history search --regex [0-9]{9}[a-z]{9}" >/dev/null 2>&1
    row[regex,$n]=$(ms "$(median regex$n 0)")
    # Copies recorded (the fast copy: store and history), each new content; then deletes of one entry.
    python3 - "$PBCTL" "$work/copies" "$work/times$n" <<'PY'
import os, subprocess, sys, time
pbctl, folder, out = sys.argv[1:]
times = []
for name in sorted(os.listdir(folder))[:200]:
    start = time.perf_counter()
    subprocess.run([pbctl, "copy", os.path.join(folder, name)], check=True)
    times.append(time.perf_counter() - start)
deletes = []
for k in range(20):
    newest = subprocess.run([pbctl, "history", "--limit", "1"], check=True, capture_output=True, text=True).stdout.split("\t")[0]
    start = time.perf_counter()
    subprocess.run([pbctl, "history", "delete", newest], check=True)
    deletes.append(time.perf_counter() - start)
times.sort(); deletes.sort()
open(out, "w").write("%f %f %f\n" % (times[len(times) // 2], times[int(len(times) * 0.99) - 1], deletes[len(deletes) // 2]))
PY
    read -r p50 p99 del < "$work/times$n"
    row[p50,$n]=$(ms "$p50"); row[p99,$n]=$(ms "$p99"); row[delete,$n]=$(ms "$del")
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
    for command in "history --limit 100" "history paste $oldest" "history search zqxjkvnomatch" "history search --regex [0-9]{9}[a-z]{9}"; do
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
echo "a median of about 40 bytes and a long tail, 15 % Markdown with its plain text, 20 % HTML with its plain text, 10 % small"
echo "PNG pictures; every entry distinct), on $(df -T "$root" | awk 'NR == 2 { print $2 }') at \`$root\`. Release binary; hyperfine medians of"
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
line p50 "a copy recorded, p50 of 200 (ms)" ""
line p99 "a copy recorded, p99 of 200 (ms)" "≤ 30 ms; growth ≤ 1.5×"
line delete "one entry deleted, median of 20 (ms)" ""
line search "plain search, no match (ms)" "≤ 300 ms"
line regexlit "\`--regex 'ERR-[0-9]{6}-zq'\`, no match (ms; its literal narrows through the index)" ""
line regex "\`--regex '[0-9]{9}[a-z]{9}'\`, no match (ms; no literal: every text read)" "≤ 3 s"
line import "import (one run)" "1M in < 5 min"
line export "export (one run)" ""
line roundtrip "export of the import, against its input" "identical"
line memory "peak memory, largest of every command above" "≤ 64 MiB"
line bytes "bytes on disk per entry" ""
line inodes "inodes per entry" "≤ 2"
echo
echo "- A copy here is \`pbctl copy FILE\` of a small text file: the store written and the entry recorded, one process."
echo "- The database is SQLite in WAL mode; \`history.db\`, its \`-wal\` and \`-shm\`, \`lock\` and \`blobs/\` (representations from"
echo "  128 KiB, none in this corpus) are the files; bytes per entry count all of them."
echo "- Run $(date -u '+%Y-%m-%d %H:%M UTC') (\`make bench\` section history), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
echo "  The copies and deletes of each size run right after its import, export and searches, on a history just written."
echo "- Cold means \`echo 3 > /proc/sys/vm/drop_caches\` before each of 5 runs."
echo
