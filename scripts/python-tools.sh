#!/usr/bin/env bash
# The Python tools the tests run, at pinned versions, in a virtualenv cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/attestguard/python-tools-venv: jsonschema (validates the JSON of
# `attestguard rules lint|test --format json` against docs/schemas/) and junitparser (reads their `--format junit`
# as a CI system does), used through scripts/check-rules-output.py.
#
#   scripts/python-tools.sh        prints the virtualenv's python, installing the tools first if needed
#
# The first run needs python3 >= 3.11 with venv (on Debian: python3-venv) and PyPI; later runs only check a marker
# named after the pins. Concurrent runs (tests in parallel) wait for one another on a lock. Exits non-zero, saying
# why on standard error, when the tools cannot be installed.
set -euo pipefail

# The tools and everything they pull in, so that every machine runs the same code.
readonly PINS=(
    jsonschema==4.26.0
    jsonschema-specifications==2025.9.1
    referencing==0.37.0
    rpds-py==2026.9.1
    attrs==26.1.0
    typing-extensions==4.16.0
    junitparser==5.0.3
)

cache="${XDG_CACHE_HOME:-$HOME/.cache}/attestguard"
venv="$cache/python-tools-venv"
marker="$venv/.installed-$(printf '%s\n' "${PINS[@]}" | sha256sum | cut -c1-16)"
mkdir -p "$cache"
exec 9>"$cache/python-tools.lock"
flock 9

if [ ! -f "$marker" ] || [ ! -x "$venv/bin/python" ]; then
    echo "python-tools.sh: installing ${PINS[*]} into $venv" >&2
    python=${PYTHON:-python3}
    if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
        echo "python-tools.sh: needs python3 >= 3.11 (set PYTHON=...)" >&2
        exit 1
    fi
    rm -rf "$venv"
    if ! "$python" -m venv "$venv" >/dev/null; then
        echo "python-tools.sh: '$python -m venv' failed (on Debian: apt-get install python3-venv)" >&2
        rm -rf "$venv"
        exit 1
    fi
    if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --no-deps "${PINS[@]}" >&2; then
        echo "python-tools.sh: installing ${PINS[*]} failed" >&2
        rm -rf "$venv"
        exit 1
    fi
    if ! "$venv/bin/python" -c 'import jsonschema, junitparser' >&2; then
        echo "python-tools.sh: the installed tools do not import" >&2
        rm -rf "$venv"
        exit 1
    fi
    touch "$marker"
fi
echo "$venv/bin/python"
