#!/usr/bin/env bash
# The store path against the machine's limit (issue #21): pbctl copy and paste through the file store
# beside cp and cat of the same bytes, in one run, with peak memory. The store, the input and the
# output all live on one tmpfs (/dev/shm), as a store under $XDG_RUNTIME_DIR does. Prints a Markdown
# section ("## Store") for docs/benchmarks.md (`make bench`, section store).
#
#   scripts/bench-store.sh PBCTL_BINARY
#
# Environment: BENCH_RUNS (hyperfine runs of the large measurements, default 15; small ones use 100).
set -euo pipefail
PBCTL=${1:?usage: scripts/bench-store.sh PBCTL_BINARY}
[ -x "$PBCTL" ] || { echo "bench-store: $PBCTL is not an executable" >&2; exit 1; }
for tool in hyperfine python3 cat cp; do
    command -v $tool >/dev/null || { echo "bench-store: $tool is missing (make bench installs it)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench-store: GNU time is missing (apt-get install time)" >&2; exit 1; }
runs=${BENCH_RUNS:-15}
[ "$runs" -lt 10 ] && runs=10
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
work=$(mktemp -d "$base/pbctl-bench-store.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PBCTL_STORE=$work/store PBCTL_HISTORY=$work/history PBCTL_BACKEND=store PBCTL_TYPES_PATH=/nonexistent
unset DISPLAY WAYLAND_DISPLAY

# hf NAME RUNS WARMUP CMD... : hyperfine -N in five rounds so the commands take turns (a load change on
# a shared machine does not favour one); output through a pipe that hyperfine drains.
hf() {
    local name=$1 runs=$2 warmup=$3; shift 3
    local per=$(( runs / 5 )) k
    [ "$per" -lt 1 ] && per=1
    for k in 1 2 3 4 5; do
        hyperfine -N --output=pipe --warmup "$warmup" --runs "$per" ${HF_PREPARE:+--prepare "$HF_PREPARE"} \
            --export-json "$work/$name.$k.json" "$@" >/dev/null \
            2>"$work/$name.err" || { cat "$work/$name.err" >&2; return 1; }
    done
}
median() {
    python3 - "$2" "$work/$1".*.json <<'PY'
import json, statistics, sys
index = int(sys.argv[1])
times = [t for path in sys.argv[2:] for t in json.load(open(path))["results"][index]["times"]]
print(repr(statistics.median(times)))
PY
}
ms() { awk -v s="$1" 'BEGIN { printf "%.2f", s * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "met" : "**not met**" }'; }
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

echo "bench-store: 64 MiB" >&2
head -c 67108864 /dev/urandom > "$work/big.bin"
"$PBCTL" copy --type public.data "$work/big.bin"
stored=$(ls "$PBCTL_STORE"/general.pasteboard/c*-0-0.data)
"$PBCTL" paste --type public.data | cmp -s - "$work/big.bin" || { echo "bench-store: the paste differs" >&2; exit 1; }
# Paste: the stored bytes to a pipe; cat of the same stored file.
hf paste "$runs" 2 "$PBCTL paste --type public.data" "cat $stored"
pp=$(median paste 0); pc=$(median paste 1)
# Copy: a file into the store; cp of the same file on the same tmpfs.
# The store path itself with the history paused; then as users run it, recorded in the history: new
# content each time (8 bytes of the file changed and the history emptied before each run, untimed),
# which the history links under a new name (no file of its size: nothing read); and the same 64 MiB
# again, whose entry moves up (the file of its size compared byte for byte with the new copy).
"$PBCTL" history pause >/dev/null
hf copy "$runs" 2 "$PBCTL copy --type public.data $work/big.bin" "cp $work/big.bin $work/copy.bin"
cp_=$(median copy 0); cc=$(median copy 1)
"$PBCTL" history resume >/dev/null
cat > "$work/new-content.sh" <<SH
#!/bin/sh
head -c 8 /dev/urandom | dd of="$work/big.bin" bs=8 count=1 conv=notrunc status=none
"$PBCTL" history clear >/dev/null 2>&1
exit 0
SH
HF_PREPARE="sh $work/new-content.sh" hf copy-new "$runs" 2 "$PBCTL copy --type public.data $work/big.bin" "cp $work/big.bin $work/copy.bin"
cnp=$(median copy-new 0); cnc=$(median copy-new 1)
hf copy-recorded "$runs" 2 "$PBCTL copy --type public.data $work/big.bin" "cp $work/big.bin $work/copy.bin"
crp=$(median copy-recorded 0); crc=$(median copy-recorded 1)
stored=$(ls "$PBCTL_STORE"/general.pasteboard/c*-0-0.data)
rss_paste=$(rss "$PBCTL" paste --type public.data); rss_cat=$(rss cat "$stored")
sh "$work/new-content.sh"
rss_copy=$(rss "$PBCTL" copy --type public.data "$work/big.bin"); rss_cp=$(rss cp "$work/big.bin" "$work/copy.bin")
recorded_entries=$("$PBCTL" history | wc -l)

echo "bench-store: 300 MiB piped in" >&2
# 300 MiB through a pipe, once as data (moved in the kernel) and once as text (checked as UTF-8 on
# the way, which needs the bytes in a buffer).
rss_pipe_data=$( { /usr/bin/time -f %M sh -c "head -c 314572800 /dev/zero | '$PBCTL' copy --type public.data" ; } 2>&1 | tail -1)
rss_pipe_text=$( { /usr/bin/time -f %M sh -c "yes 'a line of text' | head -c 314572800 | '$PBCTL' copy" ; } 2>&1 | tail -1)
piped_size=$("$PBCTL" types --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["size"])')
"$PBCTL" clear

echo "bench-store: small" >&2
printf 'hello world\n' > "$work/small.txt"
"$PBCTL" copy "$work/small.txt"
small_stored=$(ls "$PBCTL_STORE"/general.pasteboard/c*-0-0.data)
hf small-paste 100 10 "$PBCTL paste" "cat $small_stored"
sp=$(median small-paste 0); sc=$(median small-paste 1)
hf small-copy 100 10 "$PBCTL copy $work/small.txt" "cp $work/small.txt $work/small-copy.txt"
scp=$(median small-copy 0); scc=$(median small-copy 1)

echo "bench-store: start-up" >&2
# What starting costs: the static pbctl doing nothing (--version) beside /bin/true and a static C
# program that returns at once (built here with the system C compiler).
printf 'int main(void) { return 0; }\n' > "$work/nothing.c"
cc -O2 -static -o "$work/nothing" "$work/nothing.c"
hf startup 100 10 "$PBCTL --version" /bin/true "$work/nothing"
sv=$(median startup 0); st=$(median startup 1); sn=$(median startup 2)

echo "bench-store: 64 MiB on disk" >&2
# The same copy with the store and the history on a disk file system (not a tmpfs), beside cp on it:
# what one sync per copy costs where syncing is real.
disk=$(mktemp -d /var/tmp/pbctl-bench-disk.XXXXXX)
disk_fs=$(df -T "$disk" | awk 'NR == 2 { print $2 }')
cp "$work/big.bin" "$disk/big.bin"
PBCTL_STORE=$disk/store PBCTL_HISTORY=$disk/history hf disk-copy "$runs" 2 \
    "$PBCTL copy --type public.data $disk/big.bin" "cp $disk/big.bin $disk/copy.bin"
dcp=$(median disk-copy 0); dcc=$(median disk-copy 1)
printf 'hello world\n' > "$disk/small.txt"
PBCTL_STORE=$disk/store PBCTL_HISTORY=$disk/history hf disk-small-copy 100 10 \
    "$PBCTL copy $disk/small.txt" "cp $disk/small.txt $disk/small-copy.txt"
dsp=$(median disk-small-copy 0); dsc=$(median disk-small-copy 1)

echo "bench-store: 64 MiB, store on tmpfs, history on disk" >&2
# As users run it: the store under $XDG_RUNTIME_DIR (a tmpfs, here $base) and the history under
# ~/.local/state (a disk file system): new content each time (the history copies the store's file to
# its disk and syncs it: it cannot link across file systems) and the same 64 MiB again (copied to the
# tmpfs, then compared with the history's file), beside cp to the same tmpfs.
cat > "$work/new-content-split.sh" <<SH
#!/bin/sh
head -c 8 /dev/urandom | dd of="$work/big.bin" bs=8 count=1 conv=notrunc status=none
PBCTL_HISTORY=$disk/split-history "$PBCTL" history clear >/dev/null 2>&1
exit 0
SH
PBCTL_HISTORY=$disk/split-history HF_PREPARE="sh $work/new-content-split.sh" hf split-new "$runs" 2 \
    "$PBCTL copy --type public.data $work/big.bin" "cp $work/big.bin $work/copy.bin"
snp=$(median split-new 0); snc=$(median split-new 1)
PBCTL_HISTORY=$disk/split-history hf split-again "$runs" 2 \
    "$PBCTL copy --type public.data $work/big.bin" "cp $work/big.bin $work/copy.bin"
sap=$(median split-again 0); sac=$(median split-again 1)
rm -rf "$disk"

echo "bench-store: history of 1000 entries" >&2
# The history: 1000 entries recorded by copies through the store; listing them reads the database's
# index, beside cat of a file holding the same listing (cliphist, the usual peer, is not in Debian;
# docs/benchmarks.md, History at scale, measures up to a million entries).
"$PBCTL" history clear 2>/dev/null || true
for n in $(seq 1000); do printf 'entry %d: some copied text\n' "$n" | "$PBCTL" copy; done
entries=$("$PBCTL" history | wc -l)
"$PBCTL" history > "$work/listing.txt"
hf history 30 3 "$PBCTL history" "cat $work/listing.txt"
hl=$(median history 0); hc=$(median history 1)
hf history-json 30 3 "$PBCTL history --json"
hj=$(median history-json 0)
rss_history=$(rss "$PBCTL" history)

paste_ratio=$(ratio "$pp" "$pc"); copy_ratio=$(ratio "$cp_" "$cc"); new_ratio=$(ratio "$cnp" "$cnc"); again_ratio=$(ratio "$crp" "$crc")
cat <<MD
## Store (no display)

Command: \`make bench\` (scripts/bench.sh, section \`store\`: scripts/bench-store.sh), run $(date -u '+%Y-%m-%d %H:%M UTC').
The store, the input and the output are on one tmpfs ($base), as a store under \`\$XDG_RUNTIME_DIR\` is.
Wall-clock **medians** of \`hyperfine -N --output=pipe\` in five interleaved rounds; peak memory is
\`/usr/bin/time -f %M\` of one run. pbctl is the static release binary.

| measurement | pbctl | peer | ratio | target | |
|---|---:|---:|---:|---|---|
| paste of a 64 MiB stored item to a pipe vs \`cat\` of the stored file (median of $runs, ms) | $(ms "$pp") | $(ms "$pc") | $paste_ratio | ≤ 1.20 | $(verdict "$paste_ratio" 1.2) |
| copy of a 64 MiB file of new content into the store, recorded in the history (linked, nothing hashed), vs \`cp\` of it (median of $runs, ms) | $(ms "$cnp") | $(ms "$cnc") | $new_ratio | ≤ 1.20 | $(verdict "$new_ratio" 1.2) |
| the same 64 MiB copied again, recorded (compared with the history's file before copying, then that file linked: nothing written; its entry moves up) (median of $runs, ms) | $(ms "$crp") | $(ms "$crc") | $again_ratio | ≤ 1.20 | $(verdict "$again_ratio" 1.2) |
| copy of a 64 MiB file with the history paused (median of $runs, ms) | $(ms "$cp_") | $(ms "$cc") | $copy_ratio | ≤ 1.20 | $(verdict "$copy_ratio" 1.2) |
| peak memory of that paste (MiB) | $(mib "$rss_paste") | cat $(mib "$rss_cat") | | ≤ 16 | $(verdict "$(mib "$rss_paste")" 16) |
| peak memory of a 64 MiB copy of new content, recorded ($recorded_entries entry after it) (MiB) | $(mib "$rss_copy") | cp $(mib "$rss_cp") | | ≤ 16 | $(verdict "$(mib "$rss_copy")" 16) |
| peak memory of 300 MiB piped in as \`--type public.data\` (MiB) | $(mib "$rss_pipe_data") | | | ≤ 32 | $(verdict "$(mib "$rss_pipe_data")" 32) |
| peak memory of 300 MiB of text piped in, type sniffed and UTF-8 checked (MiB) | $(mib "$rss_pipe_text") | | | ≤ 32 | $(verdict "$(mib "$rss_pipe_text")" 32) |
| paste of a 12-byte item vs \`cat\` of its file (median of 100, ms) | $(ms "$sp") | $(ms "$sc") | $(ratio "$sp" "$sc") | ≤ 1.30 | $(verdict "$(ratio "$sp" "$sc")" 1.3) |
| copy of a 12-byte file vs \`cp\` of it (median of 100, ms; the copy also records itself in the history) | $(ms "$scp") | $(ms "$scc") | $(ratio "$scp" "$scc") | ≤ 1.50 | $(verdict "$(ratio "$scp" "$scc")" 1.5) |
| the same 12-byte copy on disk ($disk_fs), history included (median of 100, ms) | $(ms "$dsp") | $(ms "$dsc") | $(ratio "$dsp" "$dsc") | ≤ 1.50 | $(verdict "$(ratio "$dsp" "$dsc")" 1.5) |
| copy of a 64 MiB file on disk ($disk_fs), history included, vs \`cp\` there (median of $runs, ms) | $(ms "$dcp") | $(ms "$dcc") | $(ratio "$dcp" "$dcc") | ≤ 1.50 | $(verdict "$(ratio "$dcp" "$dcc")" 1.5) |
| 64 MiB of new content, store on tmpfs and history on disk ($disk_fs: the history copies the file there and syncs it), vs \`cp\` to the tmpfs (median of $runs, ms) | $(ms "$snp") | $(ms "$snc") | $(ratio "$snp" "$snc") | | |
| the same 64 MiB again, store on tmpfs and history on disk (copied, then compared with the history's file) (median of $runs, ms) | $(ms "$sap") | $(ms "$sac") | $(ratio "$sap" "$sac") | | |
| start-up: \`pbctl --version\` vs \`/bin/true\` (median of 100, ms) | $(ms "$sv") | $(ms "$st") | $(ratio "$sv" "$st") | | |
| start-up: \`pbctl --version\` vs a static C program that returns at once (median of 100, ms) | $(ms "$sv") | $(ms "$sn") | $(ratio "$sv" "$sn") | | |
| \`pbctl history\` of $entries entries vs \`cat\` of a file of the same listing (median of 30, ms) | $(ms "$hl") | $(ms "$hc") | $(ratio "$hl" "$hc") | < 50 ms | $(verdict "$(ms "$hl")" 50) |
| \`pbctl history --json\` of the same (median of 30, ms); peak memory of the list | $(ms "$hj") | $(mib "$rss_history") MiB | | | |

- The history keeps a large representation as the store's file, hard-linked under a unique name, and
  hashes nothing: the same bytes are found again by their size, then compared byte for byte with the
  file of that size (\`pread\` 256 KiB windows of both, the last and a middle one first), so new content
  costs the history no read at all. A file copied again is compared with the history's file of its size
  before anything is copied (one read of each) and, equal, that file is linked into the store: nothing is
  written, and the record finds it as the same inode (nothing compared twice). Never held in memory.
- The history lives beside the store here (\`PBCTL_HISTORY\` on the same tmpfs), so a copy's entry links the
  stored file instead of writing it again; on another file system (the split rows: the usual layout) it is
  copied in the kernel into a file of the history's, synced, before the history's write lock, and the same
  file again is copied into the store and then compared. The on-disk 64 MiB row copies the same file each
  run: after the first, the history's file is linked.
- A copy syncs once: the metadata it renames into place (data files are not synced one by one; the
  metadata records the boot, and after a power cut a file that did not reach the disk whole reads as a
  lost copy, never as damage). \`cp\` does not sync. On a tmpfs the sync costs nothing.
- A small paste reads the metadata and sends the file before pbctl builds its type registry or
  environment table (\`FileStore.pasteUTF8Text\`); records are read without \`JSONDecoder\`.
- The 300 MiB piped copies stored $piped_size bytes. Paste sends the stored file with \`sendfile\`; copy moves a
  file with \`copy_file_range\` and a pipe with \`splice\` unless the bytes must be checked (text), then
  through one 1 MiB buffer.

MD
