#!/usr/bin/env bash
# How much of the optimizer's kept profile (Packaging/attestguard.proftext) still fits the sources at hand.
#
#   ./Benchmarks/pgo-check.sh        (from any directory; Linux)
#
# Why: a function whose control flow changed since the recording no longer matches its record (LLVM compares a hash
# of the function's control flow) and is optimized as without a profile; a function renamed or removed has no record
# at all. Swift 6.3's frontend reports neither, so a stale profile is silent and shows only as lost speed in a
# benchmark. This counts it, so that a change can say whether Benchmarks/pgo-train.sh should record the profile again.
#
# Steps: the instrumented release build pgo-train.sh trains (Benchmarks/.build-pgo; compiled again only where the
# sources changed since its last build), run once (`attestguard --version`), which writes a record of every function
# it carries, each with its hash and zero counts; then each function of the kept profile looked up by name in those
# records. Prints how many of the profile's functions still match this build and what share of the profile's recorded
# counts they hold (a function's counts say how hot it ran in training), how many changed (same name, another hash)
# and how many are gone (no function of that name), and the hottest of those that no longer match, demangled.
#
# Environment (defaults in brackets):
#   PGO_CHECK_TOP [12]   how many of the hottest functions that no longer match are listed
#   SWIFT                the swift to build with
# Time: the instrumented build (about 12 minutes on 2 cores the first time, a few minutes after a change), then seconds.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
top="${PGO_CHECK_TOP:-12}"
# shellcheck source=scripts/shipped-build.sh
. "$root/scripts/shipped-build.sh"

profdata=$(pgo_llvm_profdata "$swift") || { echo "pgo-check.sh: the Swift toolchain has no llvm-profdata" >&2; exit 1; }
[ -f "$pgo_profile_text" ] || { echo "pgo-check.sh: $pgo_profile_text is missing" >&2; exit 1; }

work=$(mktemp -d /tmp/attestguard-pgo-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "== building the instrumented attestguard (release, $here/.build-pgo) =="
started=$SECONDS
pgo_build_instrumented "$swift" "$here" "$here/.build-pgo" "$work/build.log" || exit 1
echo "build: $((SECONDS - started)) s"

# One run writes a record of every instrumented function; merged without --sparse, the ones that never ran stay.
LLVM_PROFILE_FILE="$work/run.profraw" "$pgo_instrumented_bin" --version >/dev/null
"$profdata" merge --text --output "$work/build.proftext" "$work/run.profraw"

# table FILE: one line per function of a profile in text form: name, hash, the sum of its counts (tab-separated). The
# text form gives each function as its name, "# Func Hash:" and the hash, "# Num Counters:" and their number,
# "# Counter Values:" and one line each; the kept profile ends each with "$0" (pgo-train.sh says why). A file-local
# function's name starts with its object file's path, which the kept profile writes from the build folder on as
# @SCRATCH@/ (pgo-train.sh): this build's names are written so too.
scratch="$(cd "$here/.build-pgo" && pwd -P)/"
table() {
    awk -v scratch="$scratch" '
        /^# Func Hash:$/ { getline; hash = $0; next }
        /^# Num Counters:$/ { getline; counters = $0; next }
        /^# Counter Values:$/ {
            sum = 0
            for (i = 0; i < counters; i++) { getline; sum += $0 }
            print name "\t" hash "\t" sum
            next
        }
        /^#/ || /^:/ || $0 == "$0" || $0 == "" { next }
        index($0, scratch) == 1 { name = "@SCRATCH@/" substr($0, length(scratch) + 1); next }
        { name = $0 }' "$1"
}
table "$pgo_profile_text" >"$work/kept.tsv"
table "$work/build.proftext" >"$work/build.tsv"

# Each kept function: matched (a record of this build with its name and hash), changed (its name, only other hashes)
# or gone; the counts they hold. A name can have records of several hashes (a function copied into several modules).
awk -F '\t' -v unmatched="$work/unmatched.tsv" '
    NR == FNR { record[$1, $2] = 1; named[$1] = 1; next }
    {
        functions++; counts += $3
        if (!($1 in named)) { gone++; goneCounts += $3; print $3 "\tgone\t" $1 > unmatched }
        else if (!(($1, $2) in record)) { changed++; changedCounts += $3; print $3 "\tchanged\t" $1 > unmatched }
        else { matched++; matchedCounts += $3 }
    }
    END {
        printf "the kept profile: %d functions, %.0f counts recorded\n", functions, counts
        printf "  match this build:   %6d (%5.1f %% of the functions), %5.1f %% of the counts\n", matched, 100 * matched / functions, 100 * matchedCounts / counts
        printf "  changed since:      %6d (%5.1f %%), %5.1f %% of the counts: optimized as without a profile\n", changed, 100 * changed / functions, 100 * changedCounts / counts
        printf "  gone (no function): %6d (%5.1f %%), %5.1f %% of the counts\n", gone, 100 * gone / functions, 100 * goneCounts / counts
    }' "$work/build.tsv" "$work/kept.tsv"

if [ -s "$work/unmatched.tsv" ] && [ "$top" -gt 0 ]; then
    echo "the hottest that no longer match (counts, why, function):"
    sort -t "$(printf '\t')" -k1,1 -g -r "$work/unmatched.tsv" | head -n "$top" |
        awk -F '\t' '{ printf "  %14.0f  %-7s  %s\n", $1, $2, $3 }' | "$swift" demangle --simplified | cut -c1-220
fi
echo "(Benchmarks/pgo-train.sh records the profile again; CONTRIBUTING.md says when)"
