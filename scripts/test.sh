#!/usr/bin/env bash
# The project's one test command (README "Testing"); .ci/run calls exactly this.
# Builds everything (library, CLI, tests) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v swift >/dev/null 2>&1; then
    echo "swift is not on PATH; install Swift 6.1 or newer" >&2
    exit 1
fi

swift build --build-tests
# Every test is swift-testing; skipping the empty XCTest pass keeps the summary line unambiguous.
swift test --skip-build --disable-xctest
