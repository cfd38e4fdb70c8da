#!/usr/bin/env python3
"""Where a route's allocations are made, for Benchmarks/allocations.sh (ALLOC_BENCH_SITES=1).

    alloc_sites.py STACKS REQUESTS SWIFT [TOP]

STACKS is `perf script -F comm,tid,ip,sym` of a `perf record --call-graph=fp` on the allocation probes while the
server answered REQUESTS requests. Each allocation is charged to its site: the innermost frame of AttestGuard's own
modules on its stack and the frame it called (the allocating library call, or the next frame of another package), or,
for an allocation with no frame of ours, the two frames above the allocator's. Prints the TOP sites (25) as allocations per
request, demangled with `SWIFT demangle`. Sample counts of background work (timers, flushes) in the window are
included, which is why the sites of one route are read against each other, not added up to the exact count.
"""
import collections
import re
import subprocess
import sys

# The package's own modules (Sources/): a frame of one of them is where an allocation is charged.
OWN_MODULES = (
    "Attest", "Apple", "RiskRules", "EventLoopConcurrency", "GatewayPolicy", "PolicyFiles", "FakeApple",
    "DeviceSimulator",
)


def module(symbol):
    match = re.match(r"\$s(\d+)(\w+)", symbol)
    if not match:
        return None
    return match.group(2)[: int(match.group(1))]


def is_own(symbol):
    name = module(symbol)
    return name is not None and name.startswith(OWN_MODULES)


def read_stacks(path):
    """Each sample's frames, innermost first."""
    stacks, frames = [], None
    with open(path, errors="replace") as lines:
        for line in lines:
            if not line.strip():
                continue
            if not line.startswith("\t"):
                frames = []
                stacks.append(frames)
            elif frames is not None:
                parts = line.strip().split(None, 1)
                frames.append(parts[1] if len(parts) > 1 else "?")
    return stacks


def main():
    path, requests, swift = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 25
    stacks = read_stacks(path)
    sites = collections.Counter()
    for frames in stacks:
        own = [index for index, frame in enumerate(frames) if is_own(frame)]
        if own:
            index = own[0]
            sites[(frames[index], frames[index - 1] if index > 0 else "(itself)")] += 1
        else:
            inner = [frame for frame in frames[1:] if frame not in ("[unknown]", "?")][:2]
            sites[("(no frame of ours)", " < ".join(inner))] += 1
    common = sites.most_common(top)
    names = sorted({name for site, _ in common for name in site})
    demangled = subprocess.run(
        [swift, "demangle", "--simplified"], input="\n".join(names), capture_output=True, text=True
    ).stdout.splitlines()
    readable = dict(zip(names, demangled)) if len(demangled) == len(names) else {name: name for name in names}
    print(f"  {len(stacks)} allocations sampled over {requests} requests; per request, by site (ours -> what it called):")
    for (caller, callee), count in common:
        print(f"  {count / requests:7.1f}  {readable[caller][:90]}  ->  {readable[callee][:80]}")


if __name__ == "__main__":
    main()
