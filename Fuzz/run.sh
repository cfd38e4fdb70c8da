#!/usr/bin/env bash
# Builds every libFuzzer target of the Fuzz package and runs each in turn for N seconds.
#
#   Fuzz/run.sh [seconds-per-target] [target ...]      (default: 60 s, all targets; 0: build only)
#
# Corpora grow in Fuzz/corpus/<target>/ (seeds regenerated into Fuzz/corpus/seeds/ by make-seeds.py);
# crashes, leaks, timeouts and OOMs go to Fuzz/artifacts/<target>/, each run's log to
# Fuzz/artifacts/logs/<target>.log. Exits 1 if any target found anything, 2 if the build failed.
# Extra libFuzzer flags can be passed in FUZZ_ARGS (e.g. FUZZ_ARGS="-use_value_profile=1").
set -uo pipefail

FUZZ_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SECONDS_PER_TARGET="${1:-60}"
shift || true
if ! [[ "$SECONDS_PER_TARGET" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 [seconds-per-target] [target ...]" >&2
    exit 2
fi

# name, -max_len, dictionary (or -)
TARGET_TABLE=(
    "FuzzCBOR               8192  cbor.dict"
    "FuzzAttestationObject  8192  cbor.dict"
    "FuzzAuthenticatorData  1024  cbor.dict"
    "FuzzAssertion          4200  cbor.dict"
    "FuzzReceiptEnvelope    8192  receipt.dict"
    "FuzzReceiptPayload     4096  receipt.dict"
    "FuzzTextFormats        64    -"
)

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
command -v swift >/dev/null 2>&1 || { echo "swift is not on PATH" >&2; exit 2; }
SWIFT_BIN_DIR="$(dirname "$(command -v swift)")"

# What works with Swift 6.3 on Linux (see README.md, "How the build works"):
# - --sanitize=fuzzer makes SwiftPM stop renaming executables' entry points (otherwise it links with
#   --defsym main=<Target>_main and the link fails), so libFuzzer's own main() is used; it also
#   instruments the C code (BoringSSL) and links libFuzzer;
# - -Xswiftc -sanitize=fuzzer,address as ONE option, last on the swiftc command line: swiftc keeps only
#   the last -sanitize= option, so the "-sanitize=fuzzer -sanitize=address" that --sanitize=fuzzer
#   --sanitize=address produce alone would leave every Swift module without coverage instrumentation;
# - -parse-as-library: the harnesses have no top-level code.
BUILD_FLAGS=(-c release --sanitize=fuzzer --sanitize=address
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)

echo "== seeds"
python3 "$FUZZ_DIR/make-seeds.py" || { echo "make-seeds.py failed" >&2; exit 2; }

echo "== build (swift build --package-path Fuzz ${BUILD_FLAGS[*]})"
if ! swift build --package-path "$FUZZ_DIR" "${BUILD_FLAGS[@]}"; then
    echo "build failed" >&2
    exit 2
fi
BIN_DIR="$(swift build --package-path "$FUZZ_DIR" "${BUILD_FLAGS[@]}" --show-bin-path)"
if [ "$SECONDS_PER_TARGET" -eq 0 ]; then   # libFuzzer reads -max_total_time=0 as "no limit"
    echo "built (0 s per target: not fuzzing); binaries in $BIN_DIR"
    exit 0
fi

export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
[ -x "$SWIFT_BIN_DIR/llvm-symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$SWIFT_BIN_DIR/llvm-symbolizer"

mkdir -p "$FUZZ_DIR/artifacts/logs"
SUMMARY=()
FOUND_ANY=0

for row in "${TARGET_TABLE[@]}"; do
    read -r target max_len dict <<<"$row"
    if [ "$#" -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$target"; then continue; fi
    corpus="$FUZZ_DIR/corpus/$target"
    seeds="$FUZZ_DIR/corpus/seeds/$target"
    artifacts="$FUZZ_DIR/artifacts/$target"
    log="$FUZZ_DIR/artifacts/logs/$target.log"
    mkdir -p "$corpus" "$seeds" "$artifacts"
    dict_args=()
    [ "$dict" != "-" ] && dict_args=("-dict=$FUZZ_DIR/dicts/$dict")
    before="$(ls "$artifacts" | grep -E '^(crash|leak|timeout|oom)-' | sort)"

    echo "== $target: ${SECONDS_PER_TARGET}s, -max_len=$max_len (log: ${log#"$FUZZ_DIR"/})"
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    "$BIN_DIR/$target" \
        -max_total_time="$SECONDS_PER_TARGET" -max_len="$max_len" -rss_limit_mb=2048 -timeout=5 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict_args[@]}" ${FUZZ_ARGS:-} \
        "$corpus" "$seeds" >"$log" 2>&1
    status=$?

    after="$(ls "$artifacts" | grep -E '^(crash|leak|timeout|oom)-' | sort)"
    new="$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep -v '^$' || true)"
    found=$(printf '%s' "$new" | grep -c . || true)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    last="$(grep -E '^#[0-9]+' "$log" | tail -1)"
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$last")
    [ -z "$execs" ] && execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
    if [ "$status" -ne 0 ] && [ "$found" -eq 0 ]; then
        found=1
        new="(exit status $status, no artifact: see the log)"
    fi
    line="$(printf '%-22s execs %10s  exec/s %7s  cov %6s  ft %6s  corpus %-12s rss %5sMB  crashes %s' \
        "$target" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "${rss:-?}" "$found")"
    echo "$line"
    if [ "$found" -gt 0 ]; then
        FOUND_ANY=1
        printf '%s\n' "$new" | sed 's/^/    new artifact: /'
        grep -E '^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*FUZZ PROPERTY VIOLATED|.*Fatal error)' "$log" | head -5 | sed 's/^/    /'
    fi
    SUMMARY+=("$line")
done

echo
echo "== summary (${SECONDS_PER_TARGET}s per target)"
printf '%s\n' "${SUMMARY[@]}"
if [ "$FOUND_ANY" -ne 0 ]; then
    echo "FAILURES: see Fuzz/artifacts/<target>/ and Fuzz/README.md (reproducing a crash)"
    exit 1
fi
echo "no crashes"
