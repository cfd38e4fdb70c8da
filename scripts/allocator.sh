# The memory allocator the shipped server links: jemalloc, through Debian's libjemalloc2. Sourced (bash) by
# scripts/build-package.sh, the package build, and by the benchmarks' builds, so that what they measure is what ships.
#
# Why: glibc's malloc was 5-6 % of the server's CPU under load, and the Swift runtime, NIO and postgres-nio allocate
# on every request. Linked with jemalloc, the same binary served 10 % more assertions and 21 % more score verdicts a
# second closed loop, and /healthz 4 % more, at 10-18 % less CPU per request, server and PostgreSQL together
# (Benchmarks/ab.sh, three interleaved pairs; mimalloc came second on assertions;
# Benchmarks/results/2026-12-04-allocator.md).
#
# The library is linked by its file name (`-l:`), so the build needs only the run-time package, not a -dev one;
# `malloc` and `free` then bind to jemalloc in the whole process, libc and the Swift runtime included. The runtime
# image installs it from Packaging/runtime-packages.txt. A plain `swift build` links glibc's allocator as before.

# shellcheck source=scripts/as-root.sh
source "$(dirname "${BASH_SOURCE[0]}")/as-root.sh"

allocator_package=libjemalloc2
allocator_library=libjemalloc.so.2
# For `swift build`: the link only; no source compiles differently.
allocator_link_flags=(-Xlinker "-l:$allocator_library")

# For `swift build`: how the shipped binary links (scripts/build-package.sh): the allocator, and the Swift runtime and
# Foundation statically, which reaches thread-local storage directly instead of through `__tls_get_addr` and calls the
# runtime without the PLT (2-4 % fewer instructions a request, Benchmarks/results/2026-12-02-series-ids-and-slots.md).
shipped_link_flags=(--static-swift-stdlib "${allocator_link_flags[@]}")

# allocator_build SWIFT [ARGUMENTS...]: `SWIFT build ARGUMENTS...` linked as the shipped binary is (shipped_link_flags;
# the allocator installed first when it is missing): the benchmarks' builds, each with its own products and output,
# so that they measure what ships.
#
# With --static-swift-stdlib every module compiles against the static SDK, and SwiftPM does not rebuild all of them
# when the flag flips, so a build folder once built without it ends in a link that fails: the build folder of the
# package ARGUMENTS name (--package-path) carries a marker from its first build with the flag on (written before that
# build, so that a build that fails is not emptied again next time), and one without it is emptied first.
allocator_build() {
    local swift=$1
    shift
    local package= previous= argument networking= products=
    for argument in "$@"; do
        if [ "$previous" = --package-path ]; then package=$argument; fi
        case "$previous $argument" in "--product HTTPBenchPrep" | *" --product=HTTPBenchPrep") networking=1 ;; esac
        case "$argument" in --product | --product=*) products=1 ;; esac
        previous=$argument
    done
    # A build of every product builds HTTPBenchPrep too.
    [ -n "$products" ] || networking=1
    if [ -z "$package" ]; then
        echo "allocator.sh: allocator_build needs --package-path (the build folder it may empty)" >&2
        return 2
    fi
    local marker="$package/.build/static-swift-stdlib"
    if [ -d "$package/.build" ] && [ ! -e "$marker" ]; then
        echo "allocator.sh: $package/.build was built with the shared Swift runtime; emptying it for the static one" >&2
        rm -rf "$package/.build"
    fi
    mkdir -p "$package/.build" && touch "$marker"
    allocator_require || return 1
    if [ -n "$networking" ]; then static_foundation_require || return 1; fi
    "$swift" build "$@" "${shipped_link_flags[@]}"
}

# static_foundation_require: the static FoundationNetworking (URLSession, which HTTPBenchPrep uses; the server and the
# other benchmarks do not) links libcurl by its development name, `libcurl.so`, which only a development package
# provides: Debian's libcurl4-openssl-dev is installed when none is there. allocator_build asks for it for a build of
# HTTPBenchPrep (`--product HTTPBenchPrep`) or of every product (no `--product`).
static_foundation_require() {
    compgen -G '/usr/lib/*/libcurl.so' >/dev/null && return 0
    echo "allocator.sh: installing libcurl4-openssl-dev (the static Foundation's networking links libcurl)" >&2
    if ! apt_install libcurl4-openssl-dev >&2; then
        echo "allocator.sh: could not install libcurl4-openssl-dev (Debian); install it and build again" >&2
        return 1
    fi
}

# allocator_require: installs the allocator's package when the dynamic linker does not know the library (apt-get, as
# root or through sudo); fails with a message if that is not possible.
allocator_require() {
    # The cache's listing is read whole before it is searched: `ldconfig -p | grep -q` under `set -o pipefail` fails
    # when grep stops early and ldconfig is killed writing the rest, and would then reinstall a library that is there.
    case "$(/sbin/ldconfig -p 2>/dev/null)" in *"$allocator_library"*) return 0 ;; esac
    echo "allocator.sh: installing $allocator_package (the allocator the server links)" >&2
    if ! apt_install "$allocator_package" >&2; then
        echo "allocator.sh: could not install $allocator_package (Debian); install it and build again" >&2
        return 1
    fi
}
