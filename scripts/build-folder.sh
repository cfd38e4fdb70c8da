# Markers in a SwiftPM build folder that say how its modules were compiled. Sourced (bash) by scripts/shipped-build.sh
# and scripts/pgo.sh.
#
# Why: SwiftPM compiles a module again when its sources change, not when a flag given on the command line does, nor
# when a file a flag names does (the profile). A folder compiled one way and linked another ends in a link that fails
# (--static-swift-stdlib) or in a binary optimized with another profile, silently. Each such way of compiling has a
# marker file in the folder naming how its modules were compiled, and a build that compiles otherwise removes them
# first.

# The marker files; build_folder_mark keeps them, and the package checkouts, when it removes the compiled modules.
build_folder_markers=(static-swift-stdlib pgo-profile pgo-instrumentation)

# build_folder_mark SCRATCH MARKER IDENTITY: removes SCRATCH's compiled modules unless its file MARKER (one of
# build_folder_markers) names IDENTITY, then writes IDENTITY there. What stays: the package checkouts and their state,
# the markers, and the indexed profile (scripts/pgo.sh writes it again each build). It is called before the build, so
# that a build that fails is not compiled from nothing again next time.
build_folder_mark() {
    local scratch=$1 marker=$2 identity=$3
    local was=missing
    if [ -e "$scratch/$marker" ]; then was="'$(cat "$scratch/$marker")'"; fi
    if [ "$was" = "'$identity'" ]; then return 0; fi
    local entry name kept compiled=
    for entry in "$scratch"/*; do
        [ -e "$entry" ] || continue
        name=${entry##*/}
        case "$name" in
            checkouts | repositories | artifacts | workspace-state.json | attestguard.profdata) continue ;;
        esac
        for kept in "${build_folder_markers[@]}"; do [ "$name" = "$kept" ] && continue 2; done
        compiled=1
        rm -rf "$entry"
    done
    if [ -n "$compiled" ]; then
        echo "build-folder.sh: $scratch was compiled otherwise ($marker: $was, now '$identity'); compiling it again" >&2
    fi
    mkdir -p "$scratch" && printf '%s\n' "$identity" >"$scratch/$marker"
}
