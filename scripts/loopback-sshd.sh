#!/usr/bin/env bash
# A throwaway sshd on 127.0.0.1 for pbctl ssh (the release smoke test and the ssh benchmark): the
# account pbctl-ssh-test (made once, no password, home /var/tmp/pbctl-ssh-test emptied each time, a copy
# of PBCTL_BINARY as its pbctl), host and user keys made in FOLDER, a free port. Root only.
#
#   scripts/loopback-sshd.sh PBCTL_BINARY FOLDER
#
# Prints "PID PORT" on success: connect with
#   ssh -i FOLDER/user -p PORT -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
#       -o LogLevel=ERROR -o BatchMode=yes pbctl-ssh-test@127.0.0.1
# and stop it with kill PID.
set -euo pipefail
pbctl=${1:?usage: scripts/loopback-sshd.sh PBCTL_BINARY FOLDER}
dir=${2:?usage: scripts/loopback-sshd.sh PBCTL_BINARY FOLDER}
[ "$(id -u)" = 0 ] || { echo "loopback-sshd: needs root" >&2; exit 1; }
[ -x /usr/sbin/sshd ] || { echo "loopback-sshd: openssh-server is not installed" >&2; exit 1; }
user=pbctl-ssh-test home=/var/tmp/pbctl-ssh-test
id -u "$user" >/dev/null 2>&1 || { useradd -M -d "$home" -s /bin/sh "$user" && usermod -p '*' "$user"; } >/dev/null 2>&1
usermod -d "$home" "$user" >/dev/null 2>&1 || true
rm -rf "$home"; mkdir -p "$home/bin" /run/sshd; cp "$pbctl" "$home/bin/pbctl"; chown -R "$user" "$home"
mkdir -p "$dir"
rm -f "$dir/host" "$dir/host.pub" "$dir/user" "$dir/user.pub"
ssh-keygen -q -t ed25519 -N '' -f "$dir/host"; ssh-keygen -q -t ed25519 -N '' -f "$dir/user"
cp "$dir/user.pub" "$dir/authorized_keys"; chmod 755 "$dir"; chmod 644 "$dir/authorized_keys"
# Every folder above $dir must let the account reach its authorized_keys.
parent=$(dirname "$dir"); while [ "$parent" != / ]; do chmod o+x "$parent" 2>/dev/null || true; parent=$(dirname "$parent"); done
for attempt in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 30000))
    cat > "$dir/sshd_config" <<CONFIG
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host
PidFile none
UsePAM no
StrictModes no
AuthorizedKeysFile $dir/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
AllowStreamLocalForwarding yes
SetEnv PATH=$home/bin:/usr/bin:/bin PBCTL_STORE=$home/store PBCTL_HISTORY=$home/history
CONFIG
    /usr/sbin/sshd -D -e -f "$dir/sshd_config" 2>"$dir/sshd.log" &
    pid=$!
    for _ in $(seq 50); do
        if ssh -i "$dir/user" -p "$port" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
            -o BatchMode=yes -o ConnectTimeout=2 "$user@127.0.0.1" true 2>/dev/null; then
            echo "$pid $port"
            exit 0
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill "$pid" 2>/dev/null || true
done
echo "loopback-sshd: sshd did not start (see $dir/sshd.log)" >&2
exit 1
