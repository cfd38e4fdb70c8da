# How the shipped server is built: linked with its allocator and the static Swift runtime, and, in release, optimized
# with the kept profile. Sourced (bash) by scripts/build-package.sh, the package build, and by the benchmarks' builds,
# so that what the benchmarks measure is what ships.

# shellcheck source=scripts/build-folder.sh
source "$(dirname "${BASH_SOURCE[0]}")/build-folder.sh"
# shellcheck source=scripts/allocator.sh
source "$(dirname "${BASH_SOURCE[0]}")/allocator.sh"
# shellcheck source=scripts/pgo.sh
source "$(dirname "${BASH_SOURCE[0]}")/pgo.sh"

# For `swift build`: how the shipped binary links: the allocator, and the Swift runtime and Foundation statically,
# which reaches thread-local storage directly instead of through `__tls_get_addr` and calls the runtime without the
# PLT (2-4 % fewer instructions a request, Benchmarks/results/2026-12-02-series-ids-and-slots.md).
shipped_link_flags=(--static-swift-stdlib "${allocator_link_flags[@]}")

# shipped_build SWIFT [ARGUMENTS...]: `SWIFT build ARGUMENTS...` built as the shipped binary is: shipped_link_flags (the
# allocator installed first when it is missing) and, in release (`-c release`), the profile's flags (scripts/pgo.sh).
# The package build and the benchmarks' builds, each with its own products and build folder (--scratch-path, else
# the .build of --package-path, which one of the two must name).
#
# With --static-swift-stdlib every module compiles against the static SDK, and SwiftPM does not compile them again
# when the flag flips, so a build folder once built without it ends in a link that fails: its marker
# (scripts/build-folder.sh) is the file static-swift-stdlib, empty, since the flag is always on, and a folder without
# it is compiled again.
shipped_build() {
    local swift=$1
    shift
    local package= scratch= configuration=debug previous= argument networking= products=
    for argument in "$@"; do
        case "$previous" in
            --package-path) package=$argument ;;
            --scratch-path) scratch=$argument ;;
            -c | --configuration) configuration=$argument ;;
        esac
        case "$previous $argument" in "--product HTTPBenchPrep" | *" --product=HTTPBenchPrep") networking=1 ;; esac
        case "$argument" in --product | --product=*) products=1 ;; esac
        previous=$argument
    done
    # A build of every product builds HTTPBenchPrep too.
    [ -n "$products" ] || networking=1
    if [ -z "$scratch" ] && [ -n "$package" ]; then scratch="$package/.build"; fi
    if [ -z "$scratch" ]; then
        echo "shipped-build.sh: shipped_build needs --scratch-path or --package-path (the build folder it marks)" >&2
        return 2
    fi
    build_folder_mark "$scratch" static-swift-stdlib "" || return 1
    allocator_require || return 1
    if [ -n "$networking" ]; then static_foundation_require || return 1; fi
    pgo_flags=()
    if [ "$configuration" = release ]; then pgo_prepare "$swift" "$scratch" || return 1; fi
    "$swift" build "$@" "${shipped_link_flags[@]}" "${pgo_flags[@]}"
}

# static_foundation_require: the static FoundationNetworking (URLSession, which HTTPBenchPrep uses; the server and the
# other benchmarks do not) links libcurl by its development name, `libcurl.so`, which only a development package
# provides: Debian's libcurl4-openssl-dev is installed when none is there. shipped_build asks for it for a build of
# HTTPBenchPrep (`--product HTTPBenchPrep`) or of every product (no `--product`).
static_foundation_require() {
    compgen -G '/usr/lib/*/libcurl.so' >/dev/null && return 0
    echo "shipped-build.sh: installing libcurl4-openssl-dev (the static Foundation's networking links libcurl)" >&2
    if ! apt_install libcurl4-openssl-dev >&2; then
        echo "shipped-build.sh: could not install libcurl4-openssl-dev (Debian); install it and build again" >&2
        return 1
    fi
}
