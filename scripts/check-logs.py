#!/usr/bin/env python3
"""Checks a server's log: every line must be one record in the given format, as a log shipper reads it.

- json: one JSON object per line, every value a string;
- text: logfmt, `key=value` pairs separated by one space, a value bare (printable ASCII without space, `=` or `"`)
  or a double-quoted string with JSON escapes;

and in both, the record starts with `ts` (RFC 3339, UTC, milliseconds: 2026-11-26T07:12:56.123Z), `level` (a
swift-log level) and `msg`, then `source`; no key twice; no line longer than 16 KiB plus the line's fixed fields.

    scripts/check-logs.py --format json|text FILE [--print-level LEVEL]

Exit status 1 with one line per problem. With --print-level, the records at that level or above are printed as
logfmt with sorted keys (for a caller to grep). Stdlib only.
"""
import argparse
import json
import re
import sys

LEVELS = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")
BARE = re.compile(r'[!#-<>-~]+')  # printable ASCII but space, `"` and `=`
KEY = re.compile(r"[A-Za-z0-9_.:/-]+")
MAXIMUM_LINE = 16_384 + 512


def parse_logfmt(line):
    """The (key, value) pairs of a logfmt line; raises ValueError where it is not logfmt."""
    pairs = []
    position = 0
    while position < len(line):
        key = KEY.match(line, position)
        if not key or key.end() >= len(line) or line[key.end()] != "=":
            raise ValueError(f"expected key= at column {position + 1}")
        position = key.end() + 1
        if position < len(line) and line[position] == '"':
            value, end = json.JSONDecoder().raw_decode(line, position)
            if not isinstance(value, str):
                raise ValueError(f"quoted value at column {position + 1} is not a string")
            position = end
        else:
            bare = BARE.match(line, position)
            if not bare:
                raise ValueError(f"empty or unquoted value with space, = or \" at column {position + 1}")
            value = bare.group(0)
            position = bare.end()
        pairs.append((key.group(0), value))
        if position < len(line):
            if line[position] != " " or position + 1 == len(line):
                raise ValueError(f"expected one space between pairs at column {position + 1}")
            position += 1
    return pairs


def parse_json(line):
    pairs = []
    record = json.loads(line, object_pairs_hook=lambda items: pairs.extend(items) or {})
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    for key, value in pairs:
        if not isinstance(value, str):
            raise ValueError(f"{key} is not a string")
    return pairs


def logfmt(pairs):
    def value(text):
        return text if BARE.fullmatch(text) else json.dumps(text, ensure_ascii=False)
    return " ".join(f"{key}={value(text)}" for key, text in sorted(pairs))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--format", choices=["json", "text"], required=True)
    parser.add_argument("--print-level", choices=LEVELS)
    parser.add_argument("file")
    args = parser.parse_args()
    problems = []
    records = 0
    with open(args.file, encoding="utf-8", newline="\n") as handle:
        text = handle.read()
    if text and not text.endswith("\n"):
        problems.append("the log does not end with a newline (a record cut short?)")
    for number, line in enumerate(text.split("\n")[:-1] if text else [], start=1):
        try:
            if len(line.encode()) > MAXIMUM_LINE:
                raise ValueError(f"{len(line.encode())} bytes, more than {MAXIMUM_LINE}")
            pairs = parse_json(line) if args.format == "json" else parse_logfmt(line)
            keys = [key for key, _ in pairs]
            if keys[:4] != ["ts", "level", "msg", "source"]:
                raise ValueError(f"starts with {keys[:4]}, not ts, level, msg, source")
            if len(set(keys)) != len(keys):
                raise ValueError("a key appears twice")
            record = dict(pairs)
            if not TIMESTAMP.fullmatch(record["ts"]):
                raise ValueError(f"ts {record['ts']!r} is not RFC 3339 UTC with milliseconds")
            if record["level"] not in LEVELS:
                raise ValueError(f"level {record['level']!r} is not a swift-log level")
            records += 1
            if args.print_level and LEVELS.index(record["level"]) >= LEVELS.index(args.print_level):
                print(logfmt(pairs))
        except ValueError as error:
            problems.append(f"line {number}: {error}: {line[:200]!r}")
    if records == 0 and not problems:
        problems.append("no log lines")
    for problem in problems[:50]:
        print(f"check-logs: {args.file}: {problem}", file=sys.stderr)
    if problems:
        print(f"check-logs: {len(problems)} problem(s) in {args.format} mode", file=sys.stderr)
        return 1
    print(f"check-logs: {records} {args.format} records parsed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
