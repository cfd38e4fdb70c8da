#!/usr/bin/env python3
"""Where a run's slowest requests fall in time: spread over the run, or bunched in stalls.

    tail.py NAME=SAMPLES [NAME=SAMPLES ...]
    tail.py --perf PERF_SCRIPT_TXT SAMPLES

SAMPLES is a file of per-request samples as Benchmarks/http/bench.lua writes them with $BENCH_SAMPLES_FILE: one line
per request, its start on CLOCK_MONOTONIC in milliseconds and its latency in milliseconds.

The first form prints one line per run (Benchmarks/http.sh prints them after its table):
  - the run's p99 and how many of its slowest 1 % fell in its busiest 100 ms window and in its three busiest: a tail
    of unlucky requests spreads over the run, one of backlogs bunches;
  - its stalls: 10 ms windows of at least three sends whose median request took over 3x the run's median and over
    5 ms (every request of the window waited, not one unlucky request), how many, and how long they held requests in
    all.

A backlog has two causes that look alike in the samples: something that holds every request at once (a lock, a
blocked thread, a process that takes the cores), or a burst of arrivals on cores already busy most of the time,
worked off at the usual rate. The second form tells them apart. It lines one run's stalls up with `perf script`
output of a recording made on the same clock (`perf record -k CLOCK_MONOTONIC`, as http.sh's HTTP_BENCH_PROFILE
records; `perf script -i NAME.perf -F comm,tid,time,ip,sym > NAME.txt`, with call chains or without): perf samples a
second, by process, inside the stalls and outside them, and the leaf symbols most sampled
inside them. A process that goes quiet inside the stalls was held; a process busier inside them than outside took
the cores; the server and PostgreSQL sampled at their usual rates inside them are working a backlog off.
"""
import collections
import math
import re
import statistics
import sys

WINDOW_MS = 100.0
STALL_BUCKET_MS = 10.0
# A window with fewer sends says nothing about "every request of the window".
STALL_MINIMUM_SENDS = 3


def read_samples(path):
    """The file's (start, latency) samples in order of start; a line that is not two numbers is skipped."""
    samples = []
    with open(path, errors="replace") as lines:
        for line in lines:
            fields = line.split()
            if len(fields) != 2:
                continue
            try:
                samples.append((float(fields[0]), float(fields[1])))
            except ValueError:
                continue
    samples.sort()
    return samples


def percentile(sorted_values, percent):
    """Nearest rank, as Benchmarks/http/schedule.lua computes the table's percentiles."""
    return sorted_values[max(0, math.ceil(len(sorted_values) * percent / 100) - 1)]


def stalls(samples):
    """The intervals (start, end) in ms during which a stall held requests, merged where they overlap and cut at the
    run's last send."""
    if not samples:
        return []
    start, last = samples[0][0], samples[-1][0]
    median = statistics.median(latency for _, latency in samples)
    buckets = collections.defaultdict(list)
    for sent, latency in samples:
        buckets[int((sent - start) // STALL_BUCKET_MS)].append(latency)
    held = []
    for index, latencies in buckets.items():
        bucket_median = statistics.median(latencies)
        if len(latencies) >= STALL_MINIMUM_SENDS and bucket_median > max(5.0, 3 * median):
            begin = start + index * STALL_BUCKET_MS
            held.append((begin, min(last, begin + bucket_median)))
    held.sort()
    merged = []
    for begin, end in held:
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((begin, end))
    return merged


def describe(name, samples):
    """One line: the run's p99, where its slowest 1 % fell, and its stalls."""
    if len(samples) < 100:
        return f"{name}: too few samples ({len(samples)})"
    latencies = sorted(latency for _, latency in samples)
    p99 = percentile(latencies, 99)
    start = samples[0][0]
    slow = [sent for sent, latency in samples if latency >= p99]
    windows = collections.Counter(int((sent - start) // WINDOW_MS) for sent in slow)
    busiest = windows.most_common(3)
    held = stalls(samples)
    return (
        f"{name}: p99 {p99:.2f} ms; of its slowest {len(slow)}, {busiest[0][1]} in the busiest 100 ms window and "
        f"{sum(count for _, count in busiest)} in the three busiest; {len(held)} {'stall' if len(held) == 1 else 'stalls'} "
        f"holding requests {sum(end - begin for begin, end in held):.0f} ms in all"
    )


# A sample's first line in `perf script -F comm,tid,time,ip,sym` output: the thread's name (which may hold spaces),
# its id, the time in seconds and a colon, then, without call chains, the address and the symbol on the same line.
PERF_HEADER = re.compile(r"^(\S.*?)\s+(\d+)\s+(?:\[\d+\]\s+)?(\d+\.\d+):\s*(?:[0-9a-f]+\s+(.*\S))?\s*$")


def perf_samples(path):
    """(process, time in ms, leaf symbol) for each sample of `perf script` output, with call chains or without. The
    server's event-loop threads (NIO-...) count as `server`; any other thread by its name."""
    sample = None
    with open(path, errors="replace") as lines:
        for line in lines:
            header = PERF_HEADER.match(line) if line[:1] not in ("", " ", "\t", "\n") else None
            if header:
                if sample:
                    yield tuple(sample)
                name = header.group(1).strip()
                sample = ["server" if name.startswith("NIO-") else name, float(header.group(3)) * 1000, header.group(4) or "?"]
            elif sample and sample[2] == "?" and line.strip():
                # The first line of the call chain: the leaf's address and symbol.
                parts = line.split(None, 1)
                sample[2] = (parts[1] if len(parts) > 1 else parts[0]).strip()
    if sample:
        yield tuple(sample)


def line_up(perf_path, samples_path):
    samples = read_samples(samples_path)
    print(describe(samples_path, samples))
    if len(samples) < 100:
        return
    held = stalls(samples)
    if not held:
        return
    first, last = samples[0][0], samples[-1][0]
    held_ms = sum(end - begin for begin, end in held)
    free_ms = last - first - held_ms
    inside, outside = collections.Counter(), collections.Counter()
    leaves = collections.Counter()
    for process, time, leaf in perf_samples(perf_path):
        if not first <= time <= last:
            continue
        if any(begin <= time <= end for begin, end in held):
            inside[process] += 1
            leaves[(process, leaf[:100])] += 1
        else:
            outside[process] += 1
    if not inside and not outside:
        print("no perf sample falls in the run: was perf recorded on CLOCK_MONOTONIC (perf record -k CLOCK_MONOTONIC)?")
        return
    print("perf samples a second, inside the stalls / outside them:")
    for process in sorted(set(inside) | set(outside), key=lambda p: -(inside[p] + outside[p])):
        rate_outside = f"{outside[process] * 1000 / free_ms:8.0f}" if free_ms > 0 else "       -"
        print(f"  {process:24s} {inside[process] * 1000 / held_ms:8.0f} / {rate_outside}")
    print("leaf symbols most sampled inside the stalls:")
    for (process, leaf), count in leaves.most_common(20):
        print(f"  {count:5d}  {process:12s} {leaf}")


def main(arguments):
    if arguments[:1] == ["--perf"] and len(arguments) == 3:
        line_up(arguments[1], arguments[2])
        return 0
    if not arguments or arguments[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for argument in arguments:
        name, _, path = argument.partition("=")
        try:
            print(describe(name, read_samples(path)))
        except OSError as error:
            print(f"{name}: no samples ({error.strerror})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
