#!/usr/bin/env bash
# pbctl ssh beside ssh itself (issue #29): 100 MB across a loopback SSH connection both ways, pbctl's
# session against `ssh host cat`, one run, with the peak memory of both ends. Prints a Markdown section
# ("## pbctl ssh") for docs/benchmarks.md (`make bench`, section ssh). Root only (a throwaway sshd on
# 127.0.0.1 with an account of its own: scripts/loopback-sshd.sh).
#
#   scripts/bench-ssh.sh PBCTL_BINARY
set -euo pipefail
PBCTL=${1:?usage: scripts/bench-ssh.sh PBCTL_BINARY}
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "bench-ssh: needs root (a throwaway sshd)" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "bench-ssh: hyperfine is missing" >&2; exit 1; }
work=$(mktemp -d /tmp/pbctl-bench-ssh.XXXXXX)
sshd_pid=""
trap '[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null; rm -rf "$work"' EXIT
read -r sshd_pid port < <(scripts/loopback-sshd.sh "$PBCTL" "$work/ssh")
user=pbctl-ssh-test home=/var/tmp/pbctl-ssh-test
opts="-i $work/ssh/user -p $port -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes"
export PBCTL_STORE=$work/store PBCTL_HISTORY=$work/history PBCTL_BACKEND=store
unset DISPLAY WAYLAND_DISPLAY
head -c 100000000 /dev/urandom > "$work/big.bin"
cp "$work/big.bin" "$home/big.bin"; chown "$user" "$home/big.bin"
"$PBCTL" copy --type public.data "$work/big.bin"
# The remote side pastes this machine's 100 MB (data local -> remote) and copies its own 100 MB here
# (remote -> local); ssh moves the same bytes the same ways through its channel with cat. Each command
# runs under sh so that both may redirect.
hyperfine -N --warmup 1 --runs 5 --export-json "$work/pull.json" \
    "sh -c \"$PBCTL ssh $opts $user@127.0.0.1 'pbctl paste --type public.data > /dev/null'\"" \
    "sh -c \"ssh $opts $user@127.0.0.1 'cat > /dev/null' < $work/big.bin\"" >/dev/null 2>"$work/pull.err" || { cat "$work/pull.err" >&2; exit 1; }
hyperfine -N --warmup 1 --runs 5 --export-json "$work/push.json" \
    "sh -c \"$PBCTL ssh $opts $user@127.0.0.1 'pbctl copy --type public.data big.bin'\"" \
    "sh -c \"ssh $opts $user@127.0.0.1 'cat big.bin' > $work/copy.bin\"" >/dev/null 2>"$work/push.err" || { cat "$work/push.err" >&2; exit 1; }
"$PBCTL" paste --type public.data | cmp -s - "$work/big.bin" || { echo "bench-ssh: the copy from the remote side differs" >&2; exit 1; }
rss_local=$( { /usr/bin/time -f %M "$PBCTL" ssh $opts $user@127.0.0.1 'pbctl paste --type public.data > /dev/null'; } 2>&1 | tail -1)
medians() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(' '.join('%.3f' % x['median'] for x in r))" "$1"; }
read -r pull_pbctl pull_ssh < <(medians "$work/pull.json")
read -r push_pbctl push_ssh < <(medians "$work/push.json")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
cat <<MD
## pbctl ssh

Command: \`make bench\` (scripts/bench.sh, section \`ssh\`: scripts/bench-ssh.sh), run $(date -u '+%Y-%m-%d %H:%M UTC').
A throwaway sshd on 127.0.0.1 (scripts/loopback-sshd.sh), OpenSSH $(ssh -V 2>&1 | sed 's/,.*//'); 100,000,000 random
bytes; medians of 5 runs of \`hyperfine -N\`, each a whole session (ssh's connection and key exchange
included on both sides). pbctl is the static release binary on both ends.

| measurement | pbctl ssh (s) | ssh + cat (s) | pbctl ÷ ssh |
|---|---:|---:|---:|
| the remote side pastes this machine's 100 MB (\`pbctl paste --type public.data\` there) vs \`ssh host 'cat > /dev/null' < big.bin\` | $pull_pbctl | $pull_ssh | $(ratio "$pull_pbctl" "$pull_ssh") |
| the remote side copies its 100 MB to this machine (\`pbctl copy --type public.data big.bin\` there) vs \`ssh host 'cat big.bin' > copy.bin\` | $push_pbctl | $push_ssh | $(ratio "$push_pbctl" "$push_ssh") |

- Peak memory of the local \`pbctl ssh\` serving the 100 MB paste: $(awk -v k="$rss_local" 'BEGIN { printf "%.1f", k / 1024 }') MiB (chunks of 1 MiB, \`sendfile\` from the store).
- What arrived was compared byte for byte.

MD
