#!/usr/bin/env python3
"""Builds the fuzzers' seed corpora from the real Apple fixtures in Tests/Fixtures/apple.

Writes Fuzz/corpus/seeds/<Target>/<sha1> (regenerated on every run; Fuzz/corpus/ is gitignored).
Standard library only: a minimal CBOR reader pulls authenticator data out of attestations and
assertions, and a minimal BER reader pulls the payload (CMS eContent) out of receipts.
"""
import base64
import hashlib
import pathlib
import shutil
import sys

FUZZ = pathlib.Path(__file__).resolve().parent
FIXTURES = FUZZ.parent / "Tests" / "Fixtures" / "apple"
OUT = FUZZ / "corpus" / "seeds"


# --- minimal CBOR reader (enough for App Attest objects) ---------------------------------------
def cbor_item(data, i):
    ib = data[i]; i += 1
    major, ai = ib >> 5, ib & 0x1F
    if ai < 24:
        arg = ai
    elif ai in (24, 25, 26, 27):
        n = 1 << (ai - 24)
        arg = int.from_bytes(data[i:i + n], "big"); i += n
    elif ai == 31:
        arg = None
    else:
        raise ValueError("reserved additional information")
    if major in (0, 1):
        return (arg if major == 0 else -1 - arg), i
    if major in (2, 3):
        if arg is None:
            chunks = []
            while data[i] != 0xFF:
                chunk, i = cbor_item(data, i)
                chunks.append(chunk if isinstance(chunk, bytes) else chunk.encode())
            joined = b"".join(chunks)
            return (joined if major == 2 else joined.decode()), i + 1
        raw = bytes(data[i:i + arg]); i += arg
        return (raw if major == 2 else raw.decode()), i
    if major == 4:
        out = []
        while (len(out) < arg) if arg is not None else data[i] != 0xFF:
            value, i = cbor_item(data, i); out.append(value)
        return out, (i if arg is not None else i + 1)
    if major == 5:
        out = {}
        while (len(out) < arg) if arg is not None else data[i] != 0xFF:
            key, i = cbor_item(data, i)
            value, i = cbor_item(data, i)
            out[key if not isinstance(key, (list, dict)) else repr(key)] = value
        return out, (i if arg is not None else i + 1)
    if major == 6:
        return cbor_item(data, i)
    return ("simple", ai), i


def cbor(data):
    item, end = cbor_item(data, 0)
    assert end == len(data), "trailing bytes"
    return item


# --- minimal BER reader (indefinite lengths, constructed strings) ------------------------------
def ber_node(data, i):
    """Returns (tag byte, constructed, children or content bytes, next offset)."""
    tag = data[i]; i += 1
    if tag & 0x1F == 0x1F:  # high tag number
        while data[i] & 0x80:
            i += 1
        i += 1
    first = data[i]; i += 1
    constructed = bool(tag & 0x20)
    if first == 0x80:  # indefinite
        children = []
        while data[i:i + 2] != b"\x00\x00":
            child = ber_node(data, i); children.append(child); i = child[3]
        return tag, True, children, i + 2
    if first & 0x80:
        n = first & 0x7F
        length = int.from_bytes(data[i:i + n], "big"); i += n
    else:
        length = first
    end = i + length
    if not constructed:
        return tag, False, bytes(data[i:end]), end
    children = []
    while i < end:
        child = ber_node(data, i); children.append(child); i = child[3]
    return tag, True, children, end


def octets(node):
    tag, constructed, content, _ = node
    return b"".join(octets(child) for child in content) if constructed else content


def receipt_payload(receipt):
    content_info = ber_node(receipt, 0)
    signed_data = content_info[2][1][2][0]      # [0] EXPLICIT SignedData
    encapsulated = signed_data[2][2]            # version, digestAlgorithms, encapContentInfo
    return octets(encapsulated[2][1][2][0])     # eContentType, [0] EXPLICIT OCTET STRING


def payload_fields(payload):
    root = ber_node(payload, 0)
    for field in root[2]:
        kind = int.from_bytes(field[2][0][2], "big")
        yield kind, octets(field[2][2])


# --- seeds -------------------------------------------------------------------------------------
# RFC 8949 Appendix A examples (and a few more) in hex: every major type, definite and indefinite.
CBOR_EXAMPLES = """
00 01 17 1818 1903e8 1a000f4240 1b000000e8d4a51000 1bffffffffffffffff c249010000000000000000
3bffffffffffffffff 20 3903e7 f90000 f98000 f93c00 fb3ff199999999999a f93e00 f97bff fa47c35000
fa7f7fffff fb7e37e43c8800759c f90001 f90400 f9c400 fbc010666666666666 f97c00 f97e00 f9fc00
fa7f800000 fa7fc00000 faff800000 fb7ff0000000000000 fb7ff8000000000000 fbfff0000000000000
f4 f5 f6 f7 f0 f8ff c074323031332d30332d32315432303a30343a30305a c11a514b67b0 c1fb41d452d9ec200000
d74401020304 d818456449455446 d82076687474703a2f2f7777772e6578616d706c652e636f6d 40 4401020304
60 6161 6449455446 62225c 62c3bc 63e6b0b4 64f0908591 80 83010203 8301820203820405
98190102030405060708090a0b0c0d0e0f101112131415161718181819 a0 a201020304 a26161016162820203
826161a161626163 a56161614161626142616361436164614461656145 5f42010243030405ff 7f657374726561646d696e67ff
9fff 9f018202039f0405ffff 9f01820203820405ff 83018202039f0405ff 83019f0203ff820405
9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff bf61610161629f0203ffff 826161bf61626163ff
bf6346756ef563416d7421ff a3636b657901a0f6f7f5f4 c6c7c8c9d87b00 818181818181818181818181818181818181
"""


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    seeds = {}

    def add(target, data):
        directory = OUT / target
        directory.mkdir(parents=True, exist_ok=True)
        (directory / hashlib.sha1(data).hexdigest()).write_bytes(data)
        seeds[target] = seeds.get(target, 0) + 1

    def read(path):
        raw = path.read_bytes()
        return base64.b64decode(b"".join(raw.split())) if path.suffix == ".b64" else raw

    dev2024 = FIXTURES / "real-device-dev-2024"
    dev2020 = sorted(p for p in (FIXTURES / "real-devices-dev-2020").iterdir() if p.is_dir())
    attestations = [read(dev2024 / "attestation.b64")] + [read(d / "attestation.cbor") for d in dev2020]
    assertions = [read(dev2024 / "assertion.b64")] + [read(d / "assertion.cbor") for d in dev2020]
    receipts = [read(dev2024 / "receipt_attest.b64")] + [read(r) for d in dev2020 for r in sorted(d.glob("receipt_*.der"))]

    for attestation in attestations:
        add("FuzzAttestationObject", attestation)
        add("FuzzCBOR", attestation)
        auth_data = cbor(attestation)["authData"]
        add("FuzzAuthenticatorData", auth_data)
        add("FuzzAuthenticatorData", auth_data[37:])            # attested credential data alone
        add("FuzzCBOR", auth_data[37 + 18 + 32:])                # the COSE key
    for assertion in assertions:
        add("FuzzAssertion", assertion)
        add("FuzzCBOR", assertion)
        add("FuzzAuthenticatorData", cbor(assertion)["authenticatorData"])
    for example in CBOR_EXAMPLES.split():
        add("FuzzCBOR", bytes.fromhex(example))

    for receipt in receipts:
        add("FuzzReceiptEnvelope", receipt)
        payload = receipt_payload(receipt)
        add("FuzzReceiptPayload", payload)
        for kind, value in payload_fields(payload):
            if kind in (12, 19, 21):
                add("FuzzTextFormats", value)
    for text in ["2024-01-27T16:15:33Z", "2024-02-29T23:59:60.999999Z", "0000-01-01T00:00:00.000Z",
                 "9999-12-31T23:59:59.9999999999999999Z", "1970-01-01t00:00:00.5Z",
                 "00ff10Aa", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", ""]:
        add("FuzzTextFormats", text.encode())

    for target in sorted(seeds):
        print(f"seeds: {target}: {len(list((OUT / target).iterdir()))} files")


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # noqa: BLE001 - report which fixture broke the seed script
        print(f"make-seeds.py failed: {error!r}", file=sys.stderr)
        raise
