# The profile the shipped server is optimized with (profile-guided optimization). Sourced (bash) by
# scripts/shipped-build.sh, through which the package build and the benchmarks' builds compile.
#
# Why: with a profile of the server under load, the optimizer knows which branches, calls and loops are hot: it lays
# out and inlines for them. With the Swift modules optimized so, the same sources served GET /healthz at 0.81x the CPU a
# request, assertions at 0.97x and score verdicts at 0.96x the build without a profile (Benchmarks/ab.sh, two sittings
# of interleaved pairs); the C modules optimized too took that to 0.93x, 0.82x and 0.95x again (one sitting;
# Benchmarks/results/2026-12-06-pgo-shipped.md). The count of instructions hardly changes: they run faster.
#
# The profile is kept in the repository, Packaging/attestguard.proftext, in LLVM's text form: what
# Benchmarks/pgo-train.sh recorded from an instrumented server under the benchmarks' load, every function that ran
# with its counts. A build converts it into LLVM's indexed form in its build folder (llvm-profdata, which the Swift
# toolchain carries) and gives it to every Swift and C module's compile, the dependencies' too. A function whose code
# changed since the profile was recorded no longer matches it and is optimized as without a profile: a stale profile
# costs speed, never correctness. Benchmarks/pgo-check.sh counts the functions that no longer match it;
# Benchmarks/pgo-train.sh records it again.
#
# ATTESTGUARD_PGO=0 builds without it (to see what it is worth: two builds, Benchmarks/ab.sh).

# shellcheck source=scripts/build-folder.sh
source "$(dirname "${BASH_SOURCE[0]}")/build-folder.sh"

pgo_profile_text="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/Packaging/attestguard.proftext"

# pgo_llvm_profdata SWIFT: prints the path of the toolchain's llvm-profdata (beside swift; through xcrun on macOS).
pgo_llvm_profdata() {
    local swift_path
    swift_path=$(command -v "$1") || return 1
    local beside
    beside="$(dirname "$(readlink -f "$swift_path")")/llvm-profdata"
    if [ -x "$beside" ]; then
        echo "$beside"
    elif command -v xcrun >/dev/null 2>&1 && xcrun --find llvm-profdata 2>/dev/null; then
        :
    else
        command -v llvm-profdata
    fi
}

# pgo_index SWIFT SCRATCH OUTPUT: writes the kept profile in LLVM's indexed form to OUTPUT for a build in SCRATCH: the
# names of file-local functions carry their object file's path, recorded under @SCRATCH@ (Benchmarks/pgo-train.sh).
pgo_index() {
    local swift=$1 scratch=$2 output=$3 profdata
    if ! profdata=$(pgo_llvm_profdata "$swift"); then
        echo "pgo.sh: the Swift toolchain has no llvm-profdata; build with ATTESTGUARD_PGO=0 to go without the profile" >&2
        return 1
    fi
    [ -f "$pgo_profile_text" ] || { echo "pgo.sh: $pgo_profile_text is missing" >&2; return 1; }
    local folder
    folder="$(mkdir -p "$scratch" && cd "$scratch" && pwd)"
    if ! sed "s|^@SCRATCH@/|$folder/|" "$pgo_profile_text" >"$output.txt" ||
        ! "$profdata" merge --output "$output" "$output.txt"; then
        rm -f "$output.txt"
        echo "pgo.sh: llvm-profdata could not read $pgo_profile_text" >&2
        return 1
    fi
    rm -f "$output.txt"
}

# pgo_prepare SWIFT SCRATCH: sets pgo_flags to the swift build flags that optimize a release build in SCRATCH (SwiftPM's
# build folder) with the kept profile, whose indexed form it writes there first; empty with ATTESTGUARD_PGO=0.
#
# SwiftPM does not compile a module again when only the flags change, nor when the profile file does (it is no input
# it tracks): SCRATCH's marker pgo-profile (scripts/build-folder.sh) names the profile its modules were compiled with
# (its SHA-256, or none), and a folder compiled with another one is compiled again, every module with this one.
pgo_prepare() {
    local swift=$1 scratch=$2
    pgo_flags=()
    local identity=none
    mkdir -p "$scratch"
    if [ "${ATTESTGUARD_PGO:-1}" != 0 ]; then
        [ -f "$pgo_profile_text" ] || { echo "pgo.sh: $pgo_profile_text is missing" >&2; return 1; }
        identity=$(sha256sum <"$pgo_profile_text" | cut -c1-64)
        local indexed
        indexed="$(cd "$scratch" && pwd)/attestguard.profdata"
        pgo_index "$swift" "$scratch" "$indexed" || return 1
        # Swift modules: the driver takes no -ir-profile-use in Swift 6.3; its frontend does. C modules (NIO's HTTP
        # parser, BoringSSL's C): clang's own flag, without its warnings about functions the profile does not cover.
        pgo_flags=(-Xswiftc -Xfrontend -Xswiftc "-ir-profile-use=$indexed"
            -Xcc "-fprofile-use=$indexed" -Xcc -Wno-profile-instr-unprofiled -Xcc -Wno-profile-instr-out-of-date
            -Xcc -Wno-profile-instr-missing)
    fi
    build_folder_mark "$scratch" pgo-profile "$identity"
}

# pgo_build_instrumented SWIFT PACKAGE SCRATCH LOG: builds PACKAGE's attestguard in release with LLVM's counters in
# every Swift and C function (the kept profile not used) into SCRATCH, linked as shipped (scripts/shipped-build.sh, which
# sources this file), its output in LOG; sets pgo_instrumented_bin to the binary. Benchmarks/pgo-train.sh records the
# profile from it under load, Benchmarks/pgo-check.sh compares its functions with the kept profile's.
pgo_build_instrumented() {
    local swift=$1 package=$2 scratch=$3 log=$4
    # LLVM's profile runtime, which the Swift driver does not link for the frontend's instrumentation: the toolchain's
    # clang resource folder has it.
    local toolchain runtime
    toolchain="$(cd "$(dirname "$(readlink -f "$(command -v "$swift")")")/.." && pwd)"
    runtime=$(compgen -G "$toolchain/lib/clang/*/lib/linux/libclang_rt.profile-$(uname -m).a" | head -n 1) || true
    [ -n "$runtime" ] || { echo "pgo.sh: no libclang_rt.profile-$(uname -m).a in $toolchain/lib/clang" >&2; return 1; }
    # Counters in the Swift modules (the driver takes no -ir-profile-generate in Swift 6.3; its frontend does) and in
    # the C modules; -u keeps the runtime's registration object, which nothing else in the link names.
    local instrumentation=(-Xswiftc -Xfrontend -Xswiftc -ir-profile-generate -Xcc -fprofile-generate
        -Xlinker -u__llvm_profile_runtime -Xlinker "$runtime")
    # SwiftPM does not see a changed flag: the folder's marker names the flags its modules were compiled with.
    build_folder_mark "$scratch" pgo-instrumentation "${instrumentation[*]}"
    if ! ATTESTGUARD_PGO=0 shipped_build "$swift" -c release --package-path "$package" --scratch-path "$scratch" \
        --product attestguard "${instrumentation[@]}" >"$log" 2>&1; then
        cat "$log" >&2
        echo "pgo.sh: the instrumented build failed" >&2
        return 1
    fi
    pgo_instrumented_bin="$("$swift" build -c release --package-path "$package" --scratch-path "$scratch" --show-bin-path)/attestguard"
    # A binary built without the counters would record nothing, silently.
    grep -q __llvm_profile_runtime "$pgo_instrumented_bin" || { echo "pgo.sh: $pgo_instrumented_bin has no profile runtime" >&2; return 1; }
}

# pgo_description: a few words on how a release build is optimized, for the benchmarks' build lines.
pgo_description() {
    if [ "${ATTESTGUARD_PGO:-1}" != 0 ]; then echo "the kept profile"; else echo "no profile (ATTESTGUARD_PGO=0)"; fi
}
