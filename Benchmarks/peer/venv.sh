#!/usr/bin/env bash
# The Python peer's virtualenv: .build-peer/venv at the repository's root, with exactly the packages
# Benchmarks/peer/requirements.txt pins. Like every .build-* folder there it is git-ignored and stays out of the
# container's build context (.dockerignore).
#
#   ./Benchmarks/peer/venv.sh        (from any directory) prints the virtualenv's python, installing first if needed
#
# Creates the virtualenv when it is missing or requirements.txt changed (a marker file carries the hash of the pins),
# otherwise only checks the marker. Needs python3 >= 3.11 with its venv module (PYTHON picks another interpreter; a
# Debian system python without venv gets the Debian package python3-venv, as root) and PyPI. Concurrent runs wait
# for one another on a lock. Exits non-zero, saying why on standard error, when the packages cannot be installed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
folder="$(cd "$here/../.." && pwd)/.build-peer"
venv="$folder/venv"
requirements="$here/requirements.txt"
marker="$venv/.installed-$(sha256sum "$requirements" | cut -c1-16)"
mkdir -p "$folder"
exec 9>"$folder/venv.lock"
flock 9

if [ -f "$marker" ] && [ -x "$venv/bin/python" ]; then
    echo "$venv/bin/python"
    exit 0
fi

python="${PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
    echo "peer/venv.sh: needs python3 >= 3.11 (set PYTHON=...)" >&2
    exit 1
fi
echo "peer/venv.sh: installing $requirements into $venv" >&2
rm -rf "$venv"
if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
    # Debian ships the venv module's ensurepip apart, in python3-venv.
    rm -rf "$venv"
    if [ "$(command -v "$python")" = /usr/bin/python3 ] && command -v apt-get >/dev/null 2>&1; then
        echo "peer/venv.sh: installing python3-venv (Debian package)" >&2
        # shellcheck source=scripts/as-root.sh
        source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/as-root.sh"
        apt_install python3-venv >&2
    fi
    if ! "$python" -m venv "$venv" >/dev/null; then
        echo "peer/venv.sh: '$python -m venv' failed (on Debian: apt-get install python3-venv)" >&2
        rm -rf "$venv"
        exit 1
    fi
fi
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --no-deps -r "$requirements" >&2; then
    echo "peer/venv.sh: installing $requirements failed" >&2
    rm -rf "$venv"
    exit 1
fi
if ! "$venv/bin/python" -c 'import asyncpg, cbor2, cryptography, httptools, orjson, starlette, uvicorn, uvloop' >&2; then
    echo "peer/venv.sh: the installed packages do not import" >&2
    rm -rf "$venv"
    exit 1
fi
touch "$marker"
echo "$venv/bin/python"
