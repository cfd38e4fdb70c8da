#!/usr/bin/env python3
"""A route's most expensive functions from one callgrind file, for Benchmarks/instructions.sh.

    callgrind_functions.py CALLGRIND_FILE REQUESTS COUNT SWIFT

Runs callgrind_annotate on the file twice (inclusive and exclusive costs), keeps the COUNT most expensive functions of
each, demangles Swift's names (`SWIFT demangle --simplified`) and prints them in instructions per request (the file's
counts over REQUESTS), with each one's share of the file's total. Inclusive: the function and everything it calls,
so callers and callees both appear; exclusive: the function's own instructions only, which add up to the total.
"""
import re
import subprocess
import sys

COST_LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*([\d.]+)%\)\s+(.*)$")
# "file:function [object]", where file is ??? when the object has no line tables.
LOCATION = re.compile(r"^(?:\?\?\?|[^ ]*?\.[A-Za-z0-9]+):(.*?)(?: \[[^\]]*\])?$")


def annotate(path, inclusive):
    """The (instructions, share, function) rows of callgrind_annotate, most expensive first, and the total."""
    output = subprocess.run(
        ["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100", path],
        check=True, capture_output=True, text=True,
    ).stdout
    total, rows, in_functions = None, [], False
    for line in output.splitlines():
        match = COST_LINE.match(line)
        if not match:
            if "file:function" in line:
                in_functions = True
            continue
        instructions = int(match.group(1).replace(",", ""))
        if match.group(3).strip() == "PROGRAM TOTALS":
            total = instructions
        elif in_functions:
            location = LOCATION.match(match.group(3).strip())
            rows.append((instructions, float(match.group(2)), location.group(1) if location else match.group(3).strip()))
    if total is None:
        sys.exit(f"callgrind_functions.py: no total in callgrind_annotate's output for {path}")
    return rows, total


def demangle(names, swift):
    """Swift's simplified demangling of each name (names that are not Swift symbols come back as they are)."""
    if not names:
        return []
    result = subprocess.run(
        [swift, "demangle", "--simplified"], input="\n".join(names) + "\n", capture_output=True, text=True,
    )
    lines = result.stdout.splitlines()
    return lines if result.returncode == 0 and len(lines) == len(names) else names


def main():
    path, requests, count, swift = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    for inclusive in (True, False):
        rows, total = annotate(path, inclusive)
        top = rows[:count]
        names = demangle([name for _, _, name in top], swift)
        print(f"{'inclusive' if inclusive else 'exclusive'} (total {total / requests:,.0f} per request):")
        for (instructions, share, _), name in zip(top, names):
            shown = name if len(name) <= 150 else name[:147] + "..."
            print(f"  {instructions / requests:>12,.0f}  {share:5.1f} %  {shown}")


if __name__ == "__main__":
    main()
