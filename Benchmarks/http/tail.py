#!/usr/bin/env python3
"""Where a run's slowest requests fall in time: spread over the run, or bunched in stalls.

    tail.py NAME=SAMPLES [NAME=SAMPLES ...]
    tail.py --perf PERF_SCRIPT_TXT SAMPLES

SAMPLES is a file of per-request samples as Benchmarks/http/bench.lua writes them with $BENCH_SAMPLES_FILE: one line
per request, its start on CLOCK_MONOTONIC in milliseconds and its latency in milliseconds.

The first form prints one line per run (Benchmarks/http.sh prints them after its table):
  - the run's p99 and how many of its slowest 1 % fell in its busiest 100 ms window and in its three busiest: a tail
    of unlucky requests spreads over the run, one of backlogs bunches;
  - its stalls: 10 ms windows of sends whose median request took over 3x the run's median and over 5 ms (every request
    of the window waited, not one unlucky request), how many, and how long they held requests in all.

A backlog has two causes that look alike in the samples: something that holds every request at once (a lock, a
blocked thread, a process that takes the cores), or a burst of arrivals on cores already busy most of the time,
worked off at the usual rate. The second form tells them apart. It lines one run's stalls up with `perf script`
output of a recording made on the same clock (`perf record -k CLOCK_MONOTONIC`, as http.sh's HTTP_BENCH_PROFILE
records): perf samples a second, by process, inside the stalls and outside them, and the leaf symbols most sampled
inside them. A process that goes quiet inside the stalls was held; a process busier inside them than outside took
the cores; the server and PostgreSQL sampled at their usual rates inside them are working a backlog off.
"""
import collections
import statistics
import sys

WINDOW_MS = 100.0
STALL_BUCKET_MS = 10.0


def read_samples(path):
    samples = []
    with open(path) as lines:
        for line in lines:
            fields = line.split()
            if len(fields) == 2:
                samples.append((float(fields[0]), float(fields[1])))
    samples.sort()
    return samples


def percentile(sorted_values, fraction):
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * fraction))]


def stalls(samples):
    """The intervals (start, end) in ms during which a stall held requests, merged where they overlap."""
    if not samples:
        return []
    start = samples[0][0]
    median = statistics.median(latency for _, latency in samples)
    buckets = collections.defaultdict(list)
    for sent, latency in samples:
        buckets[int((sent - start) // STALL_BUCKET_MS)].append(latency)
    held = []
    for index, latencies in buckets.items():
        bucket_median = statistics.median(latencies)
        if bucket_median > max(5.0, 3 * median):
            begin = start + index * STALL_BUCKET_MS
            held.append((begin, begin + bucket_median))
    held.sort()
    merged = []
    for begin, end in held:
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((begin, end))
    return merged


def describe(name, samples):
    if len(samples) < 100:
        return f"{name}: too few samples ({len(samples)})"
    latencies = sorted(latency for _, latency in samples)
    p99 = percentile(latencies, 0.99)
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


def perf_lines(path):
    """(process, time in ms, leaf symbol) for each sample of `perf script` output with call chains or without."""
    sample = None
    with open(path, errors="replace") as lines:
        for line in lines:
            if line and not line[0].isspace() and ": " in line:
                if sample:
                    yield sample
                head = line.split()
                time_field = next((field for field in head if field.endswith(":") and field[:-1].replace(".", "").isdigit()), None)
                if time_field is None:
                    sample = None
                    continue
                command = line[: line.index(head[1])].strip() if len(head) > 1 else head[0]
                process = "server" if command.startswith("NIO-") else command.split()[0]
                sample = [process, float(time_field[:-1]) * 1000, "?"]
                # Without call chains the symbol follows on the same line.
                rest = line.split(time_field, 1)[1].split(":", 1)
                if len(rest) > 1 and rest[1].strip():
                    sample[2] = rest[1].split(None, 1)[-1].strip()[:100]
            elif sample and sample[2] == "?" and line.strip():
                parts = line.strip().split(None, 1)
                sample[2] = (parts[1] if len(parts) > 1 else parts[0])[:100]
    if sample:
        yield sample


def line_up(perf_path, samples_path):
    samples = read_samples(samples_path)
    held = stalls(samples)
    first, last = samples[0][0], samples[-1][0]
    held_ms = sum(end - begin for begin, end in held)
    print(describe(samples_path, samples))
    if not held:
        return
    inside, outside = collections.Counter(), collections.Counter()
    leaves = collections.Counter()
    for process, time, leaf in perf_lines(perf_path):
        if not first <= time <= last:
            continue
        if any(begin <= time <= end for begin, end in held):
            inside[process] += 1
            leaves[(process, leaf)] += 1
        else:
            outside[process] += 1
    print("perf samples a second, inside the stalls / outside them:")
    for process in sorted(set(inside) | set(outside), key=lambda p: -(inside[p] + outside[p])):
        print(f"  {process:24s} {inside[process] * 1000 / held_ms:8.0f} / {outside[process] * 1000 / (last - first - held_ms):8.0f}")
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
