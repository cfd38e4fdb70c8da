#!/usr/bin/env bash
# Records the profile the shipped server is optimized with: Packaging/attestguard.proftext (scripts/pgo.sh says how a
# release build uses it and what it is worth).
#
#   ./Benchmarks/pgo-train.sh        (from any directory; Linux)
#
# When: after a change to the request path or a dependency update (a function whose code changed since the recording
# is optimized as without a profile; Benchmarks/pgo-check.sh counts them), and before a release. The profile is a build input: commit it with the change,
# once Benchmarks/ab.sh shows a build with it no slower than one with the kept profile (copy the release binary aside
# before, build after, both as AB_A_BIN and AB_B_BIN, two sittings with the order swapped): two recordings of the same
# sources, the second with the gateway's routes added and 94 % alike by `llvm-profdata overlap`, gave builds a tenth apart
# in CPU a request (Benchmarks/results/2026-12-06-both-rounds-2x.md).
#
# Steps: an instrumented release build of attestguard in a build folder of its own, Benchmarks/.build-pgo (linked as
# shipped; LLVM's counters in every Swift and C function; the kept profile not used); then Benchmarks/ab.sh (which
# builds HTTPBenchPrep as the other benchmarks do) with the instrumented server as both variants: the preparation
# (attestations and assertion challenges through the API) and closed loops on GET /healthz, assertions and score, the
# routes a gateway calls, each server process writing its counters when it exits; then Benchmarks/gateway.sh with the
# instrumented server (one closed-loop and one paced round of each kind), for the routes only a gateway calls
# (forward-auth, session tokens). llvm-profdata merges them, keeping only the functions that ran, into the text form,
# written over Packaging/attestguard.proftext, the first step's counts weighted PGO_TRAIN_CORE_WEIGHT times the
# gateway step's: the gateway's routes run the verification and the commit the others run, and at even weight their
# mix moved what the optimizer takes for hot, so the build spent a tenth more CPU on assertions and GET /healthz
# (Benchmarks/results/2026-12-06-both-rounds-2x.md); weighted, the gateway-only functions count as run while the
# first step's routes keep their shape (Benchmarks/results/2026-12-06-gateway-training.md). Prints the profile's size
# and its hottest functions.
#
# Environment (defaults in brackets):
#   PGO_TRAIN_ROUNDS [1]        ab.sh rounds (each runs both variants on each route: the same server twice)
#   PGO_TRAIN_PER_KEY [5000]    assertion bodies per connection (ab.sh's AB_PER_KEY)
#   PGO_TRAIN_GATEWAY [1]       0: leave out the gateway step (no nginx needed)
#   PGO_TRAIN_GATEWAY_PER_KEY [10000]  assertions per connection the gateway step prepares (gateway.sh's
#                               GATEWAY_BENCH_PER_KEY; its one closed-loop and one paced round of each kind, run by
#                               the instrumented server, use about half; gateway.sh fails with "exhausted" when short)
#   PGO_TRAIN_CORE_WEIGHT [8]   the weight of the first step's counts against the gateway step's
#   PGO_TRAIN_KEEP [0]          1: keep the raw profiles (printed folder)
#   SWIFT                       the swift to build with
# Time: the instrumented build (about 12 minutes on 2 cores, the first time), HTTPBenchPrep when it is not built, and
# about 3 minutes of training on the first step's routes and 2 on the gateway's (a fast host, 2026-12-06).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
rounds="${PGO_TRAIN_ROUNDS:-1}"
per_key="${PGO_TRAIN_PER_KEY:-5000}"
gateway="${PGO_TRAIN_GATEWAY:-1}"
gateway_per_key="${PGO_TRAIN_GATEWAY_PER_KEY:-10000}"
core_weight="${PGO_TRAIN_CORE_WEIGHT:-8}"
# shellcheck source=scripts/shipped-build.sh
. "$root/scripts/shipped-build.sh"

profdata=$(pgo_llvm_profdata "$swift") || { echo "pgo-train.sh: the Swift toolchain has no llvm-profdata" >&2; exit 1; }

raw=$(mktemp -d /tmp/attestguard-pgo-train.XXXXXX)
cleanup() { if [ "${PGO_TRAIN_KEEP:-0}" = 1 ]; then echo "raw profiles kept in $raw"; else rm -rf "$raw"; fi; }
trap cleanup EXIT

echo "== building the instrumented attestguard (release, $here/.build-pgo) =="
started=$SECONDS
pgo_build_instrumented "$swift" "$here" "$here/.build-pgo" "$raw/build.log" || exit 1
echo "build: $((SECONDS - started)) s"
instrumented=$pgo_instrumented_bin

echo "== training: Benchmarks/ab.sh with the instrumented server as both variants =="
mkdir -p "$raw/core" "$raw/gateway"
settings="LLVM_PROFILE_FILE=$raw/core/attestguard-%p.profraw"
# The first recording has no kept profile to build HTTPBenchPrep with.
if [ ! -f "$pgo_profile_text" ]; then export ATTESTGUARD_PGO=0; fi
AB_A_BIN="$instrumented" AB_B_BIN="$instrumented" AB_A_ENV="$settings" AB_B_ENV="$settings" \
    AB_A_NAME=training AB_B_NAME=training AB_ROUTES="healthz assertions score" AB_ROUNDS="$rounds" \
    AB_PER_KEY="$per_key" "$here/ab.sh"

compgen -G "$raw/core/*.profraw" >/dev/null || { echo "pgo-train.sh: the servers wrote no profile" >&2; exit 1; }

if [ "$gateway" = 1 ]; then
    echo "== training: Benchmarks/gateway.sh with the instrumented server =="
    # HTTPBenchPrep is built (or left as asked) by ab.sh above.
    GATEWAY_BENCH_BIN="$instrumented" GATEWAY_BENCH_NO_BUILD=1 LLVM_PROFILE_FILE="$raw/gateway/attestguard-%p.profraw" \
        GATEWAY_BENCH_ROUNDS=1 GATEWAY_BENCH_PACED_ROUNDS=1 GATEWAY_BENCH_PER_KEY="$gateway_per_key" "$here/gateway.sh"
    compgen -G "$raw/gateway/*.profraw" >/dev/null || { echo "pgo-train.sh: the gateway's server wrote no profile" >&2; exit 1; }
fi

inputs=()
for file in "$raw"/core/*.profraw; do inputs+=("--weighted-input=$core_weight,$file"); done
for file in "$raw"/gateway/*.profraw; do [ -f "$file" ] && inputs+=("$file"); done
echo "== merging $(find "$raw" -name '*.profraw' | wc -l) raw profiles (the first step's weighted $core_weight) =="
# Left out: the helpers every module emits a copy of (`__swift_*`, and the outlined copies, consumes and destroys of
# values, mangled `WO` + a letter), whose copies share counters once linked: their recorded counts are impossible
# (`__swift_instantiateConcreteTypeFromMangledName` hundreds of thousands of calls a request, nine tenths of all
# counts), and counts that size would set the optimizer's threshold of hot code above the whole request path.
"$profdata" merge --sparse --text --no-function='^(__swift_|.*WO[a-z]+(Tm)?$)' --output "$raw/merged.proftext" \
    "${inputs[@]}"
# Two rewrites make the text the build reads:
# - a file-local function's name starts with the path of its object file, which lies in the build folder: the folder
#   is written as @SCRATCH@, which scripts/pgo.sh writes back as the folder of the build at hand;
# - LLVM's text reader takes a line starting with `$` after a function's counters as its MC/DC bitmap, and a Swift
#   name (`$s...`) begins the next function: an empty bitmap (`$0`) after every function's counters ends each one.
scratch="$(cd "$here/.build-pgo" && pwd -P)/"
awk -v scratch="$scratch" '
    index($0, scratch) == 1 { print "@SCRATCH@/" substr($0, length(scratch) + 1); next }
    /^# Num Counters:$/ { print; getline; counters = $0; print; next }
    /^# Counter Values:$/ { print; for (i = 0; i < counters; i++) { getline; print }; print "$0"; next }
    { print }' "$raw/merged.proftext" >"$pgo_profile_text"
pgo_index "$swift" "$here/.build-pgo" "$raw/check.profdata"
"$profdata" show --topn=10 "$raw/check.profdata" | "$swift" demangle --simplified | tail -n 16
echo "wrote $pgo_profile_text ($(du -h "$pgo_profile_text" | cut -f1)); every release build of scripts/build-package.sh and of the benchmarks uses it"
echo "before committing it: Benchmarks/ab.sh, a build with it against one with the profile it replaces (this script's header)"
