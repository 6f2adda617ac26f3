# Shared by the selection benchmarks (scripts/bench-x11.sh, scripts/bench-wayland.sh): hyperfine in
# alternating rounds, medians and the figures' formatting. Source it after setting $work (a scratch
# folder the caller removes).
# shellcheck shell=bash

# hf NAME RUNS WARMUP CMD... : (HF_SHELL=--shell=bash: through a shell, for redirections; else -N)
# hyperfine -N in five rounds of RUNS/5 (at least 1) runs per command, so
# the commands take turns and a load change on a shared machine does not favour one of them; the
# JSON of round k goes to $work/NAME.k.json.
hf() {
    local name=$1 runs=$2 warmup=$3; shift 3
    local per=$(( runs / 5 )) k
    [ "$per" -lt 1 ] && per=1
    for k in 1 2 3 4 5; do
        hyperfine ${HF_SHELL:--N} --warmup "$warmup" --runs "$per" --export-json "$work/$name.$k.json" "$@" >/dev/null 2>"$work/$name.err" \
            || { cat "$work/$name.err" >&2; return 1; }
    done
}
# median NAME INDEX -> seconds, over every round
median() {
    python3 - "$2" "$work/$1".*.json <<'EOF'
import json, statistics, sys
index = int(sys.argv[1])
times = [t for path in sys.argv[2:] for t in json.load(open(path))["results"][index]["times"]]
print(repr(statistics.median(times)))
EOF
}
ms() { awk -v s="$1" 'BEGIN { printf "%.2f", s * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
mbps() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", n / s / 1e6; else print "n/a" }'; }
verdict() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN { ok = (op == "le") ? (v <= t) : (v >= t); print ok ? "met" : "**not met**" }'; }

