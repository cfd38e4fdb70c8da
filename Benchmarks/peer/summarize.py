"""Summarizes a sitting of Benchmarks/peer.sh: AttestGuard (Benchmarks/http.sh) and the Python peer
(Benchmarks/peer/run.sh), run back to back, round by round.

    python3 Benchmarks/peer/summarize.py SITTING_FOLDER        (Benchmarks/peer.sh runs it at the end of a sitting;
                                                                ./Benchmarks/peer.sh --summary SITTING_FOLDER again)

Reads, in SITTING_FOLDER: machine.txt (the machine and the sitting's start and end), and per side and round N
(attestguard-N, peer-N) the exit status (SIDE-N.exit: a number, or `skipped` for a half that was not run) and the
measured runs' files copied from the script's work folder (SIDE-N/NAME.result, wrk's RESULT line from
Benchmarks/http/bench.lua; SIDE-N/NAME.cpu, the CPU seconds of wrk, server, PostgreSQL, the machine and steal; and
for the peer NAME.split, wrk's connections per worker). Prints Markdown: the machine, each half's status, one row per
side, round and route (GET /healthz, POST /v1/assertions, and the same with durable PostgreSQL), then per round the
ratios AttestGuard / peer and their mean over the rounds. A ratio needs both halves of its round, run and valid
(exit 0); for any other round a line says which half is missing or invalid and why, and gives no ratio.
"""
import os
import re
import sys

SIDES = (("attestguard", "AttestGuard"), ("peer", "Python peer"))
ROUTES = (("healthz", "GET /healthz"), ("assertions", "POST /v1/assertions"),
          ("assertions-durable", "POST /v1/assertions, durable PostgreSQL"))


def read_result(path):
    """wrk's RESULT line as a dict (first_error is last and may hold spaces)."""
    line = open(path).read().strip()
    line = line.split(" first_error=")[0]
    return dict(item.split("=", 1) for item in line.split(" ") if "=" in item)


def read_cpu(path):
    wrk, server, pg, machine, steal = (float(x) for x in open(path).read().split())
    return dict(wrk=wrk, server=server, pg=pg, machine=machine, steal=steal)


def measured(folder, side, round_):
    """The measured runs of one half: route name -> figures (only the routes it has files for)."""
    runs = {}
    base = os.path.join(folder, f"{side}-{round_}")
    for route, _ in ROUTES:
        result, cpu = os.path.join(base, route + ".result"), os.path.join(base, route + ".cpu")
        if not (os.path.exists(result) and os.path.exists(cpu)):
            continue
        r, c = read_result(result), read_cpu(cpu)
        n, d = int(r["requests"]), float(r["duration_s"])
        split_path = os.path.join(base, route + ".split")
        runs[route] = dict(
            rps=float(r["rps"]), p50=float(r["p50_ms"]), p90=float(r["p90_ms"]), p99=float(r["p99_ms"]),
            max=float(r["max_ms"]), n=n, non200=int(r["non200"]), sockerr=int(r["socket_errors"]),
            exhausted=int(r.get("exhausted", "0")),
            server_us=1e6 * c["server"] / n if n else 0.0, pg_us=1e6 * c["pg"] / n if n else 0.0,
            cores=(c["server"] / d, c["pg"] / d, c["wrk"] / d,
                   max(0.0, (c["machine"] - c["server"] - c["pg"] - c["wrk"] - c["steal"]) / d), c["steal"] / d),
            split=open(split_path).read().strip() if os.path.exists(split_path) else "")
    return runs


def status(folder, side, round_, runs):
    """(valid, text): whether the half ran and is valid, and what to say about it."""
    exit_path = os.path.join(folder, f"{side}-{round_}.exit")
    log = f"{side}-{round_}.log"
    if not os.path.exists(exit_path):
        return False, "not run (the sitting ended before it)"
    code = open(exit_path).read().strip()
    if code == "skipped":
        return False, "not run (--peer-only)"
    if code == "0" and "assertions" in runs:
        return True, "ran, valid (exit 0)"
    if not runs:
        return False, f"failed before any measured run (exit {code}; see {log})"
    return False, f"INVALID or incomplete (exit {code}; see {log})"


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    folder = sys.argv[1]
    rounds = sorted({int(m.group(1)) for m in (re.match(r"(?:attestguard|peer)-(\d+)(?:\.\w+)?$", name)
                                               for name in os.listdir(folder)) if m})
    print(f"# Sitting {os.path.basename(os.path.normpath(folder))}: AttestGuard and the Python peer")
    print()
    machine = os.path.join(folder, "machine.txt")
    if os.path.exists(machine):
        for line in open(machine).read().strip().splitlines():
            print(f"- {line}")
        print()
    halves = {}
    for round_ in rounds:
        for side, label in SIDES:
            runs = measured(folder, side, round_)
            valid, text = status(folder, side, round_, runs)
            halves[(side, round_)] = (runs, valid)
            print(f"- round {round_}, {label}: {text}")
    print()
    print("| round | server | route | req/s | p50 ms | p90 ms | p99 ms | max ms | requests | non-200 | sock.err "
          "| of own /healthz | CPU µs/req server / PostgreSQL | cores: server/pg/wrk/other/steal |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for round_ in rounds:
        for side, label in SIDES:
            runs, _ = halves[(side, round_)]
            for route, route_label in ROUTES:
                if route not in runs:
                    continue
                x = runs[route]
                share = "-"
                if route != "healthz" and "healthz" in runs and runs["healthz"]["rps"] > 0:
                    share = f"{100 * x['rps'] / runs['healthz']['rps']:.1f} %"
                print(f"| {round_} | {label} | {route_label} | {x['rps']:,.0f} | {x['p50']:.2f} | {x['p90']:.2f} | "
                      f"{x['p99']:.2f} | {x['max']:.1f} | {x['n']:,} | {x['non200']} | {x['sockerr']} | {share} | "
                      f"{x['server_us']:.0f} / {x['pg_us']:.0f} | " + " / ".join(f"{v:.2f}" for v in x["cores"]) + " |")
    print()
    splits = [f"round {r} {route}: {halves[('peer', r)][0][route]['split']}" for r in rounds for route, _ in ROUTES
              if route in halves[("peer", r)][0] and halves[("peer", r)][0][route]["split"]]
    if splits:
        print("The peer's wrk connections per worker (count pid=PID, halfway into the run): " + "; ".join(splits) + ".")
        print()
    ratios = {}
    for round_ in rounds:
        (ag, ag_valid), (pe, pe_valid) = halves[("attestguard", round_)], halves[("peer", round_)]
        if not (ag_valid and pe_valid):
            missing = [label for (side, label) in SIDES if not halves[(side, round_)][1]]
            print(f"round {round_}: no ratio: {' and '.join(missing)} not run or not valid (above)")
            continue
        a, p = ag["assertions"], pe["assertions"]
        values = dict(rps=a["rps"] / p["rps"], p99=a["p99"] / p["p99"],
                      cpu=(a["server_us"] + a["pg_us"]) / (p["server_us"] + p["pg_us"]),
                      server_cpu=a["server_us"] / p["server_us"], pg_cpu=a["pg_us"] / p["pg_us"])
        text = (f"round {round_}: assertions AttestGuard / peer {values['rps']:.2f}x ({a['rps']:,.0f} / {p['rps']:,.0f} req/s), "
                f"p99 {values['p99']:.2f}x ({a['p99']:.2f} / {p['p99']:.2f} ms)")
        if "healthz" in ag and "healthz" in pe:
            values["ag_share"], values["pe_share"] = a["rps"] / ag["healthz"]["rps"], p["rps"] / pe["healthz"]["rps"]
            values["healthz"] = ag["healthz"]["rps"] / pe["healthz"]["rps"]
            text += (f"; of own /healthz AttestGuard {100 * values['ag_share']:.1f} %, peer {100 * values['pe_share']:.1f} %; "
                     f"/healthz AttestGuard / peer {values['healthz']:.2f}x")
        text += (f"; CPU per accepted assertion (server + PostgreSQL) AttestGuard / peer {values['cpu']:.2f}x "
                 f"(server {values['server_cpu']:.2f}x, PostgreSQL {values['pg_cpu']:.2f}x)")
        if "assertions-durable" in ag and "assertions-durable" in pe:
            values["durable"] = ag["assertions-durable"]["rps"] / pe["assertions-durable"]["rps"]
            text += f"; durable PostgreSQL {values['durable']:.2f}x"
        print(text)
        for key, value in values.items():
            ratios.setdefault(key, []).append(value)
    if ratios:
        mean = {key: sum(v) / len(v) for key, v in ratios.items()}
        count = len(ratios["rps"])
        text = f"mean of {count} round{'s' if count > 1 else ''}: assertions {mean['rps']:.2f}x, p99 {mean['p99']:.2f}x"
        if "ag_share" in mean:
            text += f", of own /healthz AttestGuard {100 * mean['ag_share']:.1f} % and peer {100 * mean['pe_share']:.1f} %"
        text += f", CPU per assertion {mean['cpu']:.2f}x"
        if "durable" in mean and len(ratios["durable"]) == count:
            text += f", durable {mean['durable']:.2f}x"
        print(text)
    else:
        print("no round has both halves: no ratio in this sitting")


if __name__ == "__main__":
    main()
