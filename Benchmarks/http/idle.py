#!/usr/bin/env python3
"""The idle server, for Benchmarks/http.sh: what a process spends with no request.

    idle.py SECONDS SERVER_PID [POSTGRES_PID...]

Reads the processes, waits SECONDS, reads them again, and prints one line: the server's CPU a second (and as a share
of one core), its context switches a second, and the CPU a second of the other processes together (PostgreSQL's
postmaster and backends).

CPU comes from each process's CPU clock (what clock_getcpuclockid names: every thread the process has run, also
threads that exited in the window, in nanoseconds; the 10 ms ticks of /proc/PID/stat cannot resolve an idle process's
few milliseconds a second). Context switches, voluntary or not, are each thread's own counts in
/proc/PID/task/TID/status, summed over the threads alive at both reads (a thread that exits takes its counts with it).
A process that is gone at the second read counts for nothing.
"""
import glob
import os
import sys
import time


def cpu_seconds(pid):
    """The process's CPU time so far, or None once it is gone (CPUCLOCK_SCHED of the process, as glibc makes it)."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)
    except OSError:
        return None


def switches_by_thread(pid):
    counts = {}
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            with open(status) as text:
                counts[status] = sum(int(line.split()[1]) for line in text if "ctxt_switches" in line)
        except OSError:
            pass
    return counts


def main():
    seconds = float(sys.argv[1])
    server, others = int(sys.argv[2]), [int(pid) for pid in sys.argv[3:]]
    server_cpu, server_switches = cpu_seconds(server), switches_by_thread(server)
    other_cpu = {pid: cpu_seconds(pid) for pid in others}
    time.sleep(seconds)
    server_cpu = (cpu_seconds(server) or 0) - (server_cpu or 0)
    after = switches_by_thread(server)
    switches = sum(after[thread] - count for thread, count in server_switches.items() if thread in after)
    others_cpu = 0.0
    for pid, before in other_cpu.items():
        now = cpu_seconds(pid)
        if before is not None and now is not None:
            others_cpu += now - before
    print(f"idle server ({seconds:g} s, no request): {server_cpu / seconds * 1e3:.1f} ms of CPU a second "
          f"({server_cpu / seconds * 100:.2f} % of a core), {switches / seconds:.0f} context switches a second; "
          f"PostgreSQL {others_cpu / seconds * 1e3:.1f} ms of CPU a second")


if __name__ == "__main__":
    main()
