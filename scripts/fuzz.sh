#!/usr/bin/env bash
# make fuzz: coverage-guided fuzzing (libFuzzer + AddressSanitizer) of every entry point that takes
# outside bytes (Sources/FuzzTargets). Each target runs FUZZ_SECONDS (default 60), FUZZ_PARALLEL at a
# time (default 1), from its seed corpus Tests/Fuzz/corpus/<target> plus a working corpus kept in
# .build-fuzz/corpus/<target> between runs. Prints executions, executions per second, coverage (edges)
# and findings per target; every crash, hang (over FUZZ_TIMEOUT s, default 10) or out-of-memory input is
# copied into Tests/Fuzz/regressions/<target>/, which FuzzRegressionTests replays on every `make test`.
# Then, when FUZZ_PBCTL names a pbctl binary (make fuzz passes the release build), the same inputs,
# mutated, go through that binary (scripts/fuzz-cli.py: convert for every pair, copy + paste --as) for
# FUZZ_SECONDS, checking that each run ends with a documented exit code.
# Exit status: 0 when nothing was found, 1 otherwise.
#
#   make fuzz                              # every target, 60 s each
#   make fuzz FUZZ_SECONDS=600 FUZZ_PARALLEL=2 FUZZ_TARGETS="rtf html"
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
parallel=${FUZZ_PARALLEL:-1}
timeout_s=${FUZZ_TIMEOUT:-10}
all_targets=$(ls Tests/Fuzz/corpus)
targets=${FUZZ_TARGETS:-$all_targets}
targets=$(for t in $targets; do [ "$t" = cli ] || echo "$t"; done)
scratch=.build-fuzz

mkdir -p "$scratch"
# Optimised, with assertions kept (the readers' progress checks are assertions) and ASan.
echo "fuzz: building the harness (release, -sanitize=fuzzer,address, assertions on)" >&2
# The C shim (Sources/CImage) is instrumented too: coverage for the fuzzer, ASan for its own bounds.
PBCTL_FUZZ=1 swift build -c release --scratch-path "$scratch" --product pbctl-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -assert-config -Xswiftc Debug \
    -Xcc -fsanitize=fuzzer-no-link,address >"$scratch/build.log" 2>&1 \
    || { tail -30 "$scratch/build.log" >&2; echo "fuzz: build failed (full log: $scratch/build.log)" >&2; exit 2; }
binary="$scratch/release/pbctl-fuzz"

run_one() {
    local target=$1
    local work="$scratch/corpus/$target" artifacts="$scratch/artifacts/$target" log="$scratch/logs/$target.log"
    mkdir -p "$work" "$artifacts" "$scratch/logs"
    # Memory: a single input may not make pbctl allocate more than 1 GiB, nor grow it past 2 GiB.
    PBCTL_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
        timeout -k 10 $((seconds + 120)) "$binary" -max_total_time="$seconds" -timeout="$timeout_s" \
        -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=65536 -print_final_stats=1 -close_fd_mask=3 \
        -artifact_prefix="$artifacts/" "$work" "Tests/Fuzz/corpus/$target" >"$log" 2>&1
    echo $? >"$log.status"
}

running=0
for target in $targets; do
    run_one "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$parallel" ]; then wait -n; running=$((running - 1)); fi
done
wait

status=0
printf '%-18s %8s %10s %8s %7s %9s\n' target seconds executions exec/s edges findings
for target in $targets; do
    log="$scratch/logs/$target.log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    edges=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    findings=0
    mkdir -p "Tests/Fuzz/regressions/$target"
    for artifact in "$scratch/artifacts/$target"/*; do
        [ -f "$artifact" ] || continue
        findings=$((findings + 1))
        cp "$artifact" "Tests/Fuzz/regressions/$target/$(basename "$artifact")"
        echo "fuzz: $target: $(basename "$artifact") kept in Tests/Fuzz/regressions/$target/" >&2
        rm -f "$artifact"
    done
    # A run that died without leaving an artifact (the harness itself failed) is a finding too.
    if [ "$(cat "$log.status")" != 0 ] && [ "$findings" = 0 ]; then
        findings="?"
        echo "fuzz: $target: libFuzzer exited $(cat "$log.status") without an artifact; see $log" >&2
    fi
    [ "$findings" = 0 ] || status=1
    printf '%-18s %8s %10s %8s %7s %9s\n' "$target" "$seconds" "${execs:-?}" "${rate:-?}" "${edges:-?}" "$findings"
done
if [ -n "${FUZZ_PBCTL:-}" ] && { [ -z "${FUZZ_TARGETS:-}" ] || [[ " $FUZZ_TARGETS " == *" cli "* ]]; }; then
    python3 scripts/fuzz-cli.py "$FUZZ_PBCTL" "$seconds" || status=1
fi
exit $status
