# The memory allocator the shipped server links: jemalloc, through Debian's libjemalloc2. Sourced (bash) by
# scripts/shipped-build.sh, through which the package build and the benchmarks' builds link, so that what the
# benchmarks measure is what ships.
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
