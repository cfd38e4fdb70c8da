#!/usr/bin/env bash
# AttestGuard rule evaluation benchmark: ./Benchmarks/rules.sh [--rules DIR] [--seconds S] [--runs N]
# Builds RuleBench in release mode (Benchmarks/.build), pins it to one core (BENCH_CPU, default 0) and prints
# requests evaluated per second and rule evaluations per second (rules x requests) on the shipped Rules/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
swift="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
# shellcheck source=scripts/shipped-build.sh
. "$here/../scripts/shipped-build.sh" # built as the shipped server is; every build of this package is
shipped_build "$swift" -c release --package-path "$here" --product RuleBench >/dev/null
bin_dir="$("$swift" build -c release --package-path "$here" --show-bin-path)"
exec taskset -c "${BENCH_CPU:-0}" "$bin_dir/RuleBench" --rules "$here/../Rules" "$@"
