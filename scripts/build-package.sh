#!/usr/bin/env bash
# Builds the `attestguard` binary for packaging and stages what a deployment needs (docs/operators.md, "Packaging: systemd
# units and a container recipe").
# It is the one build step of Packaging/Containerfile, and scripts/check-packaging.sh runs it on the host in CI,
# so the binary the checks look at is built exactly as the image's is (only the configuration may differ).
#
#   scripts/build-package.sh [--configuration release|debug] [--output DIR] [--scratch-path DIR] [--binary FILE]
#
#   --configuration  release (default; what the image ships) or debug (the same sources and the same link, without
#                    the optimiser, debug info or index: about half the CPU time of release)
#   --output         the staging folder, emptied first (default: .build-package/stage)
#   --scratch-path   SwiftPM's build folder (default: .build-package). Never the test build's .build: with
#                    --static-swift-stdlib every module compiles against the static SDK, and SwiftPM does not rebuild
#                    all of them when the flag flips, so a shared folder ends in a link that fails (tried).
#   --binary         stage this already built attestguard instead of building one (the test command stages its own
#                    build's binary: scripts/check-packaging.sh --binary); the manual page is then written by the
#                    generate-manual tool beside it (`swift build --product generate-manual` in the same build)
#
# The Swift runtime and Foundation are linked statically (--static-swift-stdlib): the binary needs only Debian
# libraries at run time, the ones Packaging/runtime-packages.txt lists (checked by scripts/check-packaging.sh), jemalloc
# among them: the binary links it as its allocator (scripts/allocator.sh, which installs it here if it is missing). A
# release build is optimized with the profile kept in Packaging/attestguard.proftext (scripts/pgo.sh; the toolchain's
# llvm-profdata reads it; ATTESTGUARD_PGO=0 builds without it).
# The binary already carries the SQL migrations, the OpenAPI document and the version; the default rule set it
# carries is the demo's, so the rule set a server reads is staged as files (rules.directory).
#
# The staged tree mirrors where things go on a host (copy it onto /, or take pieces of it, as the Containerfile does):
#   usr/local/bin/attestguard
#   usr/local/share/attestguard/rules/             the default rule set (Rules/: rules, lists, test cases)
#   usr/local/share/attestguard/attestguard.yaml   an example production configuration (secrets as files)
#   usr/local/share/attestguard/README.md          the project's README, LICENSE and NOTICE
#   usr/local/share/attestguard/docs/              the operators' guide and the runbooks: the units' Documentation=
#   usr/local/share/attestguard/gateway-policy/    an example gateway route policy (Gateway/policy/)
#   usr/local/share/man/man1/attestguard.1         the manual page: `man attestguard`
#   usr/local/share/bash-completion/completions/attestguard, usr/local/share/zsh/site-functions/_attestguard,
#   usr/local/share/fish/vendor_completions.d/attestguard.fish
#                                                  shell completion, where each shell looks for it by itself
#   usr/local/lib/systemd/system/                  attestguard.service, -migrate.service, -receipts-refresh.service/.timer
#   usr/local/lib/sysusers.d/attestguard.conf      the system user the units run as
set -euo pipefail
cd "$(dirname "$0")/.."

configuration=release
output=.build-package/stage
scratch=.build-package
prebuilt=
usage() { sed -n '7,16p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --configuration | -c) configuration=${2:?--configuration needs a value}; shift 2 ;;
        --output) output=${2:?--output needs a folder}; shift 2 ;;
        --scratch-path) scratch=${2:?--scratch-path needs a folder}; shift 2 ;;
        --binary) prebuilt=${2:?--binary needs a file}; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "build-package.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
done
case "$configuration" in
    release | debug) ;;
    *) echo "build-package.sh: --configuration must be release or debug, got $configuration" >&2; exit 2 ;;
esac

# shellcheck source=scripts/shipped-build.sh
. scripts/shipped-build.sh
flags=(-c "$configuration" --scratch-path "$scratch")
if [ "$configuration" = debug ]; then
    # A check build: no DWARF and no index spare about a sixth of the compile; neither changes what is linked.
    flags+=(--disable-index-store -debug-info-format none)
fi
if [ -n "$prebuilt" ]; then
    [ -x "$prebuilt" ] || { echo "build-package.sh: $prebuilt is not an executable" >&2; exit 2; }
    binary=$prebuilt
    configuration=prebuilt
else
    shipped_build swift "${flags[@]}" --product attestguard
    # argument-parser's generate-manual, the tool behind its `generate-manual` plugin: the plugin would build every
    # product again without this build's flags, so the tool is built here and run on the binary below.
    shipped_build swift "${flags[@]}" --product generate-manual
    binary="$(swift build "${flags[@]}" "${shipped_link_flags[@]}" --show-bin-path)/attestguard"
fi
manual_tool="$(dirname "$binary")/generate-manual"
[ -x "$manual_tool" ] || {
    echo "build-package.sh: no generate-manual beside $binary: build it with \`swift build --product generate-manual\`" >&2
    exit 2
}

rm -rf "$output"
install -d "$output/usr/local/bin" "$output/usr/local/share/attestguard" \
    "$output/usr/local/lib/systemd/system" "$output/usr/local/lib/sysusers.d"
install -m 0755 "$binary" "$output/usr/local/bin/attestguard"
if [ "$configuration" = release ] && command -v strip >/dev/null 2>&1; then
    # DWARF off, symbols kept: a crash's backtrace still names functions.
    strip --strip-debug "$output/usr/local/bin/attestguard"
fi
cp -R Rules "$output/usr/local/share/attestguard/rules"
cp -R Gateway/policy "$output/usr/local/share/attestguard/gateway-policy"
install -m 0644 Packaging/attestguard.yaml README.md LICENSE NOTICE "$output/usr/local/share/attestguard/"
install -d "$output/usr/local/share/attestguard/docs"
install -m 0644 docs/operators.md docs/runbooks.md docs/receipts.md "$output/usr/local/share/attestguard/docs/"
install -m 0644 Packaging/systemd/*.service Packaging/systemd/*.timer "$output/usr/local/lib/systemd/system/"
install -m 0644 Packaging/systemd/attestguard.sysusers "$output/usr/local/lib/sysusers.d/attestguard.conf"

# The manual page and the shell completions come from the binary's own command tree, so they say what it does. The
# page is dated by the last commit (reproducible from one checkout), or today outside git.
manual_date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
install -d "$output/usr/local/share/man/man1"
"$manual_tool" "$binary" --date "$manual_date" --output-directory "$output/usr/local/share/man/man1"
# A discussion's paragraphs reach the page as empty lines, which mdoc reads as a mistake (groff warns about each):
# .Pp is its paragraph break.
sed -i 's/^$/.Pp/' "$output/usr/local/share/man/man1/attestguard.1"
install -d "$output/usr/local/share/bash-completion/completions" "$output/usr/local/share/zsh/site-functions" \
    "$output/usr/local/share/fish/vendor_completions.d"
"$binary" --generate-completion-script bash > "$output/usr/local/share/bash-completion/completions/attestguard"
"$binary" --generate-completion-script zsh > "$output/usr/local/share/zsh/site-functions/_attestguard"
"$binary" --generate-completion-script fish > "$output/usr/local/share/fish/vendor_completions.d/attestguard.fish"

echo "build-package.sh: staged $configuration build in $output ($(du -sh "$output/usr/local/bin/attestguard" | cut -f1) binary)"
