"""Prepares the Python peer's benchmark (Benchmarks/peer/run.sh): what HTTPBenchPrep does for AttestGuard, written
straight into the peer's database, since the peer has no challenge or attestation route.

    prep.py --url postgres://postgres@127.0.0.1:PORT/postgres --keys K --per-key M --out DIR [--app-id A]

Creates the database `peer` on the cluster at --url with schema.sql; for each of K simulated devices (a software
App Attest key made here with `cryptography`, user `bench-user-<i>`) registers the key (as an attestation would:
public key, user, counter 0, active) and issues M assertion challenges bound to the user and key (32 random bytes,
1 h TTL, written with COPY), then mints the M assertions in counter order (clientData v1 bound to
POST /api/orders {"item":"sku-1"}) and writes them as POST /v1/assertions bodies, one JSON line each, to
DIR/key-<i>.txt: each valid exactly once, in file order, as Benchmarks/http/bench.lua sends them. The keys are
minted in parallel (--processes, default one per core). Ends with VACUUM ANALYZE. Prints the peer database's URL,
for the server, on stdout, and the time it took on standard error.
"""
import argparse
import asyncio
import base64
import datetime
import hashlib
import json
import multiprocessing
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

UTC = datetime.timezone.utc
ITEM_BODY = b'{"item":"sku-1"}'


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class SoftwareKey:
    """An App Attest key in software: assertions are CBOR {signature, authenticatorData}, the signature an ECDSA
    P-256/SHA-256 signature over nonce = SHA-256(authenticatorData || SHA-256(clientData))."""

    def __init__(self, app_id):
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.public_point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.key_id = hashlib.sha256(self.public_point).digest()
        self.key_id_b64 = base64.b64encode(self.key_id).decode()
        self.rp_id_hash = hashlib.sha256(app_id.encode()).digest()
        self.counter = 0

    def assert_(self, client_data):
        import cbor2
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        self.counter += 1
        auth_data = self.rp_id_hash + bytes([0x40]) + self.counter.to_bytes(4, "big")
        nonce = hashlib.sha256(auth_data + hashlib.sha256(client_data).digest()).digest()
        signature = self.key.sign(nonce, ec.ECDSA(hashes.SHA256()))
        return cbor2.dumps({"signature": signature, "authenticatorData": auth_data})


def mint_key(args):
    """Worker: one key's registration row, its challenges and its body file."""
    index, per_key, app_id, out = args
    device = SoftwareKey(app_id)
    user_id = f"bench-user-{index}"
    body_sha = b64url(hashlib.sha256(ITEM_BODY).digest())
    challenges = [os.urandom(32) for _ in range(per_key)]
    lines = []
    for challenge in challenges:
        client_data = ('{"v":1,"challenge":"%s","method":"POST","path":"/api/orders","bodySha256":"%s"}'
                       % (b64url(challenge), body_sha)).encode()
        assertion = device.assert_(client_data)  # counter 1, 2, ... in order
        lines.append(json.dumps({
            "appId": app_id,
            "assertion": base64.b64encode(assertion).decode(),
            "clientData": b64url(client_data),
            "keyId": device.key_id_b64,
            "request": {"bodySha256": body_sha, "method": "POST", "path": "/api/orders"},
            "userId": user_id,
        }, sort_keys=True, separators=(",", ":")))
    with open(os.path.join(out, f"key-{index}.txt"), "w") as file:
        file.write("\n".join(lines) + "\n")
    return index, device.key_id, device.public_point, user_id, challenges


async def load(url, app_id, keys):
    import asyncpg
    admin = await asyncpg.connect(url)
    await admin.execute("DROP DATABASE IF EXISTS peer")
    await admin.execute("CREATE DATABASE peer")
    await admin.close()
    peer_url = url.rsplit("/", 1)[0] + "/peer" + ("?" + url.split("?", 1)[1] if "?" in url else "")
    conn = await asyncpg.connect(peer_url)
    await conn.execute(open(os.path.join(HERE, "schema.sql")).read())
    now = datetime.datetime.now(UTC)
    await conn.copy_records_to_table(
        "app_keys", columns=["app_id", "key_id", "user_id", "environment", "public_key", "counter", "status", "attested_at"],
        records=[(app_id, key_id, user_id, "development", point, 0, "active", now)
                 for _, key_id, point, user_id, _ in keys])
    expires = now + datetime.timedelta(hours=1)
    await conn.copy_records_to_table(
        "challenges", columns=["id", "app_id", "purpose", "user_id", "key_id", "issued_at", "expires_at"],
        records=[(challenge, app_id, "assertion", user_id, key_id, now, expires)
                 for _, key_id, _, user_id, challenges in keys for challenge in challenges])
    await conn.execute("VACUUM ANALYZE")
    await conn.close()
    return peer_url


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--keys", type=int, default=16)
    parser.add_argument("--per-key", type=int, default=10000)
    parser.add_argument("--out", required=True)
    parser.add_argument("--app-id", default="ABCDE12345.com.example.bench")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    started = time.monotonic()
    with multiprocessing.Pool(options.processes) as pool:
        keys = pool.map(mint_key, [(i, options.per_key, options.app_id, options.out) for i in range(options.keys)])
    minted = time.monotonic() - started
    peer_url = asyncio.run(load(options.url, options.app_id, keys))
    print(f"prep: {options.keys} keys x {options.per_key} assertions minted in {minted:.1f} s, loaded in "
          f"{time.monotonic() - started - minted:.1f} s", file=sys.stderr)
    print(peer_url)


if __name__ == "__main__":
    main()
