#!/usr/bin/env python3
"""Requests one after another on one keep-alive connection, for Benchmarks/allocations.sh.

    sequential.py URL API_KEY ROUTE COUNT [BODIES_FILE [FIRST_LINE]]

ROUTE is `healthz` (GET /healthz), `score` (POST /v1/score) or `assertions` (POST /v1/assertions). The POST routes send
the lines of BODIES_FILE from FIRST_LINE (from 0) on, one per request; score bodies are reused from the start when the
file runs out, assertion bodies are single-use and must last. Each request is sent when the previous answer has been
read, so the server has one request in hand at a time: every batch it forms holds one entry, and what it allocates
for a request does not depend on how requests happened to group. Exits non-zero at the first answer that is not 200,
printing its status and the start of its body.
"""
import http.client
import sys
import time


def main():
    url, api_key, route, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    host, port = url.split("//", 1)[1].rstrip("/").split(":")
    bodies = []
    if route in ("score", "assertions"):
        first = int(sys.argv[6]) if len(sys.argv) > 6 else 0
        with open(sys.argv[5]) as lines:
            bodies = [line.strip().encode() for line in lines][first:]
        if not bodies or (route == "assertions" and len(bodies) < count):
            sys.exit(f"sequential.py: {sys.argv[5]} has {len(bodies)} bodies from line {first}, {count} needed")
    elif route != "healthz":
        sys.exit(f"sequential.py: unknown route {route}")
    connection = http.client.HTTPConnection(host, int(port))
    headers = {"Authorization": "Bearer " + api_key, "Content-Type": "application/json"}
    started = time.monotonic()
    for index in range(count):
        if route == "healthz":
            connection.request("GET", "/healthz")
        else:
            connection.request("POST", "/v1/" + route, body=bodies[index % len(bodies)], headers=headers)
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            sys.exit(f"sequential.py: request {index + 1} of {route} answered {response.status}: {body[:200]!r}")
    print(f"{route}: {count} requests answered 200 in {time.monotonic() - started:.2f} s")


if __name__ == "__main__":
    main()
