#!/usr/bin/env bash
# The documentation catalogs' check: the DocC documentation of the iOS client libraries builds without a single
# warning. For each of AttestGuardClient and AttestGuardClientTesting it
#   1. extracts the module's public symbol graph (swift-symbolgraph-extract) from a build's modules, and
#   2. runs `docc convert` on the module's catalog (Sources/<module>/<module>.docc) with that symbol graph and
#      --warnings-as-errors, so that an unresolved ``Symbol`` or <doc:Article> link, in the catalog or in a doc
#      comment, or a curated article that does not exist fails the check.
#
#   scripts/check-docc.sh [BUILD_DIR]
#
# BUILD_DIR is the build whose modules are read (default .build/debug, the test build; `swift build --show-bin-path`
# names it). The check builds nothing: the doc comments it reads are those of the last build, so run it after
# `swift build --build-tests`. It takes a few seconds, prints one line on success, and leaves nothing behind (its
# symbol graphs, module cache and archives go to a temp folder it removes).
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -le 1 ] || { echo "usage: scripts/check-docc.sh [BUILD_DIR]" >&2; exit 2; }
build_dir=${1:-.build/debug}
modules=("AttestGuardClient" "AttestGuardClientTesting")
started=$SECONDS

fail() { echo "check-docc.sh: FAIL: $*" >&2; exit 1; }

# SwiftPM 6 keeps the modules in BUILD_DIR/Modules, earlier versions in BUILD_DIR itself.
[ -d "$build_dir" ] || fail "no build folder $build_dir: run swift build --build-tests first"
module_dir=$build_dir/Modules
[ -d "$module_dir" ] || module_dir=$build_dir
for module in "${modules[@]}"; do
    [ -e "$module_dir/$module.swiftmodule" ] || fail "no $module.swiftmodule in $module_dir: run swift build --build-tests first"
done

# The tools ship beside `swift` in the toolchain (/opt/swift/usr/bin here); xcrun finds them on a Mac.
tool() {
    local name=$1 found
    if found=$(command -v "$name" 2>/dev/null); then echo "$found"; return; fi
    if command -v swift >/dev/null 2>&1; then
        found=$(dirname "$(readlink -f "$(command -v swift)")")/$name
        if [ -x "$found" ]; then echo "$found"; return; fi
    fi
    if command -v xcrun >/dev/null 2>&1 && found=$(xcrun --find "$name" 2>/dev/null); then echo "$found"; return; fi
    fail "$name is not installed (it ships with the Swift toolchain, beside swift)"
}
extract=$(tool swift-symbolgraph-extract)
docc=$(tool docc)

# The target the modules were built for: the build folder sits in a folder named by its triple
# (.build/x86_64-unknown-linux-gnu/debug); otherwise the compiler's host.
triple=$(basename "$(dirname "$(readlink -f "$build_dir")")")
if ! [[ $triple =~ ^[a-z0-9_]+-[a-z0-9_]+-[a-z0-9_.-]+$ ]]; then
    triple=$(swiftc -print-target-info | sed -n 's/^ *"triple": "\(.*\)",*$/\1/p' | head -1)
fi
sdk_options=()
if [ "$(uname -s)" = Darwin ]; then sdk_options=(-sdk "$(xcrun --show-sdk-path)"); fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pages=0
for module in "${modules[@]}"; do
    catalog=Sources/$module/$module.docc
    [ -d "$catalog" ] || fail "$catalog does not exist"
    mkdir -p "$work/$module/symbol-graphs"
    # Public symbols only, as SwiftPM's documentation build of a library shows them.
    if ! "$extract" -module-name "$module" -target "$triple" "${sdk_options[@]}" -I "$module_dir" \
        -minimum-access-level public -module-cache-path "$work/module-cache" \
        -output-dir "$work/$module/symbol-graphs" >"$work/$module/extract.log" 2>&1; then
        cat "$work/$module/extract.log" >&2
        fail "swift-symbolgraph-extract could not read $module from $module_dir"
    fi
    if ! "$docc" convert "$catalog" --additional-symbol-graph-dir "$work/$module/symbol-graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --warnings-as-errors --output-path "$work/$module/$module.doccarchive" >"$work/$module/docc.log" 2>&1; then
        cat "$work/$module/docc.log" >&2
        fail "docc convert $catalog: fix the warnings above (a symbol link the build's symbol graph lacks, a missing article)"
    fi
    count=$(find "$work/$module/$module.doccarchive/data/documentation" -name '*.json' | wc -l)
    pages=$((pages + count))
done

echo "check-docc.sh: ${modules[*]} documentation builds without warnings ($pages pages, $((SECONDS - started)) s)"
