#!/usr/bin/env bash
# The packaging checks (README "Testing"), run by scripts/test.sh:
#   1. Packaging/Containerfile builds with exactly one script, scripts/build-package.sh, and installs its runtime
#      packages from Packaging/runtime-packages.txt;
#   2. that script builds and stages the binary here, on the host (Debian 12, as the image's bookworm stages);
#   3. `man attestguard` renders the staged manual page without a warning, and the bash completion completes;
#   4. every shared library `ldd` reports for the staged binary belongs (dpkg -S) to a package the list names;
#   5. `systemd-analyze verify` passes on the shipped units, without a single warning, and systemd-sysusers reads the
#      shipped sysusers.d file as the one user the units run as;
#   6. the optimizer's profile a release build uses, Packaging/attestguard.proftext, reads (llvm-profdata).
#
#   scripts/check-packaging.sh [--configuration debug|release] [--scratch-path DIR] [--binary FILE]
#                                                                                    (passed to build-package.sh)
#
# debug by default: about 9 minutes of CPU from a clean scratch folder against 17 for release, and the same link
# (ldd reports the same libraries for both; measured). `--configuration release` checks the image's very build.
# `--binary FILE` checks an attestguard already built instead (the test command passes its own build's, so that the
# run compiles the package once): that binary loads the Swift runtime and Foundation from the toolchain, which the
# package build links statically, so those libraries are left out of step 4; every other library is the same set the
# static binary loads (measured: libc, libm, libstdc++, libgcc_s, libz). The static link itself is then not
# exercised: run the script without --binary for that (before a release, or after a change of dependencies).
#
# A missing tool (man, ldd, dpkg, systemd-analyze) fails the check under CI=true and skips that part otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

build_options=(--configuration debug)
prebuilt=
while [ $# -gt 0 ]; do
    case "$1" in
        --configuration | -c | --scratch-path) build_options+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
        --binary) prebuilt=${2:?--binary needs a file}; build_options+=(--binary "$prebuilt"); shift 2 ;;
        *) echo "check-packaging.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

failures=0
fail() { echo "check-packaging.sh: FAIL: $*" >&2; failures=$((failures + 1)); }
missing_tool() {
    if [ "${CI:-}" = "true" ]; then fail "$1 is not installed ($2), and CI requires this check"
    else echo "check-packaging.sh: $1 is not installed ($2): skipping $3" >&2; fi
}

containerfile=Packaging/Containerfile
package_list=Packaging/runtime-packages.txt
# The list as apt-get gets it in the Containerfile: comments and blank lines dropped.
runtime_packages() { sed 's/#.*//' "$package_list" | tr -s ' \t' '\n' | sed '/^$/d'; }

# 1. The Containerfile's build is the script CI runs: one RUN of it, no other swift invocation.
runs=$(grep -c '^RUN scripts/build-package.sh ' "$containerfile" || true)
[ "$runs" = 1 ] || fail "$containerfile must RUN scripts/build-package.sh exactly once (found $runs)"
if grep -n -E '(^|[^-])swift (build|package)' "$containerfile" >&2; then
    fail "$containerfile builds outside scripts/build-package.sh (above)"
fi
grep -q "$package_list" "$containerfile" || fail "$containerfile does not install from $package_list"
[ -n "$(runtime_packages)" ] || fail "$package_list lists no package"

# 2. Build and stage, as the image's build stage does.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage="$work/stage"
scripts/build-package.sh "${build_options[@]}" --output "$stage"
binary="$stage/usr/local/bin/attestguard"
"$binary" --help >/dev/null || fail "the staged binary does not run"

# 3. The manual page renders without a warning and covers the command tree; the bash completion loads and completes a
# subcommand (the zsh and fish scripts come from the same generator, and neither shell is installed here).
manual_root="$stage/usr/local/share/man"
if ! command -v man >/dev/null 2>&1; then
    missing_tool man "Debian: man-db" "the manual page check"
elif ! page=$(MANPATH="$manual_root" MANWIDTH=100 man -P cat attestguard 2>"$work/man.err"); then
    fail "man attestguard does not render from the stage: $(cat "$work/man.err")"
elif [ -s "$work/man.err" ]; then
    fail "man attestguard renders with warnings: $(cat "$work/man.err")"
else
    for subcommand in serve demo migrate receipts rules lint backtest gateway verify simulate reference; do
        grep -qE "^ +$subcommand( |$)" <<<"$page" || fail "the manual page has no entry for $subcommand"
    done
    echo "check-packaging.sh: man attestguard renders ($(wc -l <<<"$page") lines)"
fi
completion="$stage/usr/local/share/bash-completion/completions/attestguard"
reply=$(bash -c 'source "$1" && COMP_WORDS=(attestguard ru) COMP_CWORD=1 COMP_LINE="attestguard ru" && COMP_POINT=${#COMP_LINE} &&
    _attestguard attestguard ru attestguard && echo "${COMPREPLY[*]}"' completion "$completion" 2>&1) || true
[ "$reply" = rules ] || fail "the bash completion does not complete 'attestguard ru' to rules: $reply"
for script in "$stage/usr/local/share/zsh/site-functions/_attestguard" "$stage/usr/local/share/fish/vendor_completions.d/attestguard.fish"; do
    [ -s "$script" ] || fail "$script is missing or empty"
done

# 4. Every shared library the binary loads comes from a listed package.
# dpkg knows a file under the path its package installed; on a merged-/usr system ldd may name the other spelling
# (/lib/... for /usr/lib/...), or a symlink, so each candidate is tried.
package_of() {
    local path=$1 candidate resolved
    resolved=$(readlink -f "$path" 2>/dev/null || echo "$path")
    for candidate in "$path" "$resolved"; do
        for spelling in "$candidate" "${candidate#/usr}" "/usr$candidate"; do
            if dpkg-query -S "$spelling" 2>/dev/null | grep -v '^diversion' | head -1 | cut -d: -f1 | grep .; then
                return 0
            fi
        done
    done
    return 1
}
if ! command -v ldd >/dev/null 2>&1; then
    missing_tool ldd "Debian: libc-bin" "the shared-library check"
elif ! command -v dpkg-query >/dev/null 2>&1; then
    missing_tool dpkg-query "a Debian system" "the shared-library check"
else
    echo "check-packaging.sh: ldd $binary"
    ldd_output=$(ldd "$binary" 2>&1) || true
    echo "$ldd_output" | sed 's/^/    /'
    listed=$(runtime_packages)
    checked=0
    # The toolchain's runtime folder (.../usr/lib/swift), whose libraries a prebuilt binary may load.
    swift_runtime=
    if [ -n "$prebuilt" ] && command -v swiftc >/dev/null 2>&1; then
        swift_runtime="$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/lib/swift/"
    fi
    if echo "$ldd_output" | grep -q 'not a dynamic executable'; then
        echo "check-packaging.sh: the binary is static: it loads no shared library"
    else
        while read -r line; do
            [ -n "$line" ] || continue
            name=${line%% *}
            case "$line" in
                *"=> not found"*) fail "$name: not found on this host"; continue ;;
                *" => "*) path=${line#* => }; path=${path%% (*} ;;
                /*) path=${line%% (*} ;;
                # The kernel's virtual library (vdso): mapped into every process, no file, no package.
                linux-vdso.so.* | linux-gate.so.*) continue ;;
                *) fail "cannot read ldd's line: $line"; continue ;;
            esac
            if [ -n "$swift_runtime" ] && [[ "$(readlink -f "$path" 2>/dev/null || echo "$path")" == "$swift_runtime"* ]]; then
                echo "    $name: the Swift runtime (linked statically by the package build)"
                continue
            fi
            if ! package=$(package_of "$path"); then
                fail "$name ($path) belongs to no Debian package: the image could not install it"
                continue
            fi
            if ! grep -qx "$package" <<<"$listed"; then
                fail "$name ($path) comes from the package $package, which $package_list does not list"
                continue
            fi
            echo "    $name: $package"
            checked=$((checked + 1))
        done <<<"$ldd_output"
        [ "$checked" -gt 0 ] || [ "$failures" -gt 0 ] || fail "ldd reported no library: cannot read its output"
    fi
fi

# 5. The systemd units, as shipped except for ExecStart's binary (verify needs it to exist): copies in which
# /usr/local/bin/attestguard is the staged binary. Any diagnostic fails, warnings included (verify itself exits 0
# on an unknown key or section).
if ! command -v systemd-analyze >/dev/null 2>&1; then
    missing_tool systemd-analyze "Debian: systemd" "systemd-analyze verify"
else
    units="$work/units"
    mkdir "$units"
    for unit in Packaging/systemd/*.service Packaging/systemd/*.timer; do
        sed "s#/usr/local/bin/attestguard#$binary#g" "$unit" > "$units/$(basename "$unit")"
    done
    if ! verify_output=$(cd "$units" && systemd-analyze verify ./*.service ./*.timer 2>&1) || [ -n "$verify_output" ]; then
        echo "$verify_output" | sed "s#$units/##g; s#$binary#/usr/local/bin/attestguard#g" >&2
        fail "systemd-analyze verify reports the problems above in Packaging/systemd/"
    else
        echo "check-packaging.sh: systemd-analyze verify: $(ls "$units" | tr '\n' ' ')ok"
    fi
fi
# The system user, as systemd-sysusers reads the staged file (a dry run in an empty root; it exits 0 even on a
# line it cannot read, so anything but the expected lines fails).
if ! command -v systemd-sysusers >/dev/null 2>&1; then
    missing_tool systemd-sysusers "Debian: systemd" "the sysusers.d check"
else
    root="$work/sysusers-root"
    install -d "$root/etc" "$root/usr/local/lib/sysusers.d"
    cp "$stage/usr/local/lib/sysusers.d/attestguard.conf" "$root/usr/local/lib/sysusers.d/"
    sysusers_output=$(systemd-sysusers --root="$root" --dry-run 2>&1) || fail "systemd-sysusers --dry-run failed"
    unexpected=$(grep -v -E "^(Creating (group|user) 'attestguard' .*|Would write .*)$" <<<"$sysusers_output" || true)
    if [ -n "$unexpected" ] || ! grep -q "^Creating user 'attestguard'" <<<"$sysusers_output"; then
        echo "$sysusers_output" | sed "s#$root##g" >&2
        fail "systemd-sysusers does not read Packaging/systemd/attestguard.sysusers as one user attestguard (above)"
    else
        echo "check-packaging.sh: systemd-sysusers: user attestguard ok"
    fi
fi

# 6. The kept profile reads as a release build reads it (a debug build, the test command's, does not use it).
# shellcheck source=scripts/pgo.sh
. scripts/pgo.sh
if ! profdata=$(pgo_llvm_profdata swift); then
    missing_tool llvm-profdata "the Swift toolchain carries it" "the profile check"
elif ! pgo_index swift "$work" "$work/attestguard.profdata" 2>"$work/profdata.err"; then
    fail "the kept profile does not read: $(cat "$work/profdata.err")"
else
    echo "check-packaging.sh: $pgo_profile_text reads ($("$profdata" show "$work/attestguard.profdata" | grep -m1 'Total functions'))"
fi

if [ "$failures" -gt 0 ]; then
    echo "check-packaging.sh: $failures problem(s)" >&2
    exit 1
fi
echo "check-packaging.sh: ok"
