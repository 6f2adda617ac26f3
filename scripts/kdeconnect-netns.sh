#!/usr/bin/env bash
# Network namespaces for the KDE Connect tests: nothing they announce or connect to leaves them.
#   kdeconnect-netns.sh up PREFIX OCTET      two namespaces PREFIXa and PREFIXb joined by a veth pair,
#                                            10.213.OCTET.1/24 and .2/24, each with a default route
#                                            through the pair (so 255.255.255.255 reaches the other)
#   kdeconnect-netns.sh down PREFIX          removes them (and every process left in them)
#   kdeconnect-netns.sh peer-start NS DIR    a headless KDE Connect in NS: an Xvfb on a free display, a
#                                            private session dbus-daemon, kdeconnectd; its HOME, config and
#                                            runtime in DIR
#   kdeconnect-netns.sh peer NS DIR CMD...   runs CMD in NS with that peer's DISPLAY, D-Bus and HOME
#                                            (kdeconnect-cli, gdbus, xclip)
#   kdeconnect-netns.sh peer-stop DIR        stops that peer
set -euo pipefail
command=${1:?command}
shift
case "$command" in
up)
    prefix=$1 octet=$2
    down() { ip netns del "${prefix}a" 2>/dev/null || true; ip netns del "${prefix}b" 2>/dev/null || true; }
    down
    ip netns add "${prefix}a"
    ip netns add "${prefix}b"
    ip link add "${prefix}va" type veth peer name "${prefix}vb"
    ip link set "${prefix}va" netns "${prefix}a"
    ip link set "${prefix}vb" netns "${prefix}b"
    ip -n "${prefix}a" addr add "10.213.$octet.1/24" dev "${prefix}va"
    ip -n "${prefix}b" addr add "10.213.$octet.2/24" dev "${prefix}vb"
    for side in a b; do
        ip -n "$prefix$side" link set lo up
        ip -n "$prefix$side" link set "${prefix}v$side" up
        ip -n "$prefix$side" route add default dev "${prefix}v$side"
    done
    ;;
down)
    prefix=$1
    for side in a b; do
        if ip netns pids "$prefix$side" >/dev/null 2>&1; then
            for pid in $(ip netns pids "$prefix$side"); do kill -9 "$pid" 2>/dev/null || true; done
        fi
        ip netns del "$prefix$side" 2>/dev/null || true
    done
    ;;
peer-start)
    ns=$1 dir=$2
    mkdir -p "$dir/home/.config" "$dir/run"
    chmod 700 "$dir/run"
    : >"$dir/display"
    ip netns exec "$ns" Xvfb -displayfd 1 -nolisten tcp -screen 0 640x480x24 >"$dir/display" 2>"$dir/xvfb.log" &
    echo $! >"$dir/xvfb.pid"
    for _ in $(seq 100); do [ -s "$dir/display" ] && break; sleep 0.1; done
    display=$(tr -dc 0-9 <"$dir/display")
    [ -n "$display" ] || { echo "Xvfb did not start: $(tail -3 "$dir/xvfb.log")" >&2; exit 1; }
    ip netns exec "$ns" env -i PATH=/usr/bin:/bin HOME="$dir/home" \
        dbus-daemon --session --fork --print-address=1 --print-pid=2 >"$dir/bus" 2>"$dir/dbus.pid"
    cat >"$dir/env" <<ENV
export PATH=/usr/bin:/bin HOME=$dir/home XDG_CONFIG_HOME=$dir/home/.config XDG_DATA_HOME=$dir/home/.local/share
export XDG_RUNTIME_DIR=$dir/run DISPLAY=:$display QT_QPA_PLATFORM=xcb DBUS_SESSION_BUS_ADDRESS=$(head -1 "$dir/bus")
ENV
    ip netns exec "$ns" env -i bash -c ". '$dir/env'; exec /usr/lib/x86_64-linux-gnu/libexec/kdeconnectd" >"$dir/kdeconnectd.log" 2>&1 &
    echo $! >"$dir/kdeconnectd.pid"
    # Up once it answers on D-Bus.
    for _ in $(seq 100); do
        ip netns exec "$ns" env -i bash -c ". '$dir/env'; kdeconnect-cli -l" >/dev/null 2>&1 && exit 0
        sleep 0.1
    done
    echo "kdeconnectd did not start: $(tail -3 "$dir/kdeconnectd.log")" >&2
    exit 1
    ;;
peer)
    ns=$1 dir=$2
    shift 2
    exec ip netns exec "$ns" env -i bash -c ". '$dir/env'; exec \"\$@\"" peer "$@"
    ;;
peer-stop)
    dir=$1
    for name in kdeconnectd xvfb dbus; do
        [ -f "$dir/$name.pid" ] && kill "$(cat "$dir/$name.pid")" 2>/dev/null || true
    done
    ;;
*)
    echo "unknown command $command" >&2
    exit 64
    ;;
esac
