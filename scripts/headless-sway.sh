#!/usr/bin/env bash
# A headless sway for tests and benchmarks: `scripts/headless-sway.sh DIR` starts one whose runtime
# directory is DIR (created 0700 for the unprivileged user it runs as: sway refuses root), waits for its
# socket and prints "SOCKET_PATH PID". Clients (root included) then use WAYLAND_DISPLAY=SOCKET_PATH.
# Stop it with `kill PID`. Needs: sway (apt), runuser (util-linux).
set -euo pipefail
dir=${1:?usage: scripts/headless-sway.sh RUNTIME_DIR}
user=${PBCTL_SWAY_USER:-pbctl-sway}
command -v sway >/dev/null || { echo "headless-sway: sway is not installed (apt-get install sway)" >&2; exit 1; }
if [ "$(id -u)" = 0 ]; then
    id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
    run=(runuser -u "$user" --)
else
    run=()  # an unprivileged caller runs sway itself
    user=$(id -un)
fi
mkdir -p "$dir"
chown "$user" "$dir" 2>/dev/null || true
chmod 0700 "$dir"
"${run[@]}" env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$dir" WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 \
    WLR_RENDERER=pixman sway -c /dev/null >"$dir.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
    socket=$(ls "$dir"/wayland-* 2>/dev/null | grep -v '\.lock$' | head -1 || true)
    [ -n "$socket" ] && [ -S "$socket" ] && { echo "$socket $pid"; exit 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
echo "headless-sway: sway did not start; its log:" >&2
cat "$dir.log" >&2 || true
kill "$pid" 2>/dev/null || true
exit 1
