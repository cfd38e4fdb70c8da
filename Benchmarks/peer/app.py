"""The Python peer of AttestGuard's POST /v1/assertions: the route as a team would write it with common Python
libraries, measured beside AttestGuard under the same load by Benchmarks/peer.sh (Benchmarks/README.md).

Starlette on uvicorn (uvloop + httptools, one worker process per core), an asyncpg pool per worker,
`cryptography` (OpenSSL) for ECDSA P-256, cbor2 for CBOR, orjson for JSON; the versions are pinned in
Benchmarks/peer/requirements.txt.

Routes:
  GET  /healthz          {"status":"ok"}
  POST /v1/assertions    the same request and response shape as AttestGuard's, the same checks in the same order:
      Bearer API key (scope verify, allowed apps) -> body limits and field checks -> app known -> key lookup
      (one SELECT) -> key belongs to userId and is active -> CBOR {signature, authenticatorData} ->
      nonce = SHA-256(authenticatorData || SHA-256(clientData)) -> ECDSA P-256/SHA-256 over the nonce with the
      stored key -> rpIdHash == SHA-256(appId) -> counter > 0 and > the stored counter -> clientData v1
      {v, challenge, method, path, bodySha256} bound to the gateway's request -> ONE transaction of two
      conditional UPDATEs (consume the challenge: unused, unexpired, right app/purpose/user/key; advance the
      counter: active and counter < new), each of which must change one row, else ROLLBACK and diagnose
      (409 assertion_already_accepted for a replay, 409 challenge_used, 422 challenge_expired /
      challenge_not_found / challenge_mismatch / counter_not_increasing / key_revoked ...).
      Verdict: a constant `allow` (score 0, no reasons, ruleSetVersion "none"); there is NO rules engine, no
      scoring read, no velocity counters, no decision log and no metrics. AttestGuard does all of these on the
      same route, so the comparison is AttestGuard's whole route against the peer's verification and commit alone.

Configuration (environment):
  PEER_DATABASE_URL  postgres://...           (required; prep.py prints it)
  PEER_API_KEY       the Bearer token          (required; scopes verify, all apps)
  PEER_APP_ID        the one configured app    (default ABCDE12345.com.example.bench, environments [development])
  PEER_POOL_SIZE     asyncpg connections per worker process (default 8: 2 workers x 8 = AttestGuard's poolSize 16)

Run (Benchmarks/peer/run.sh does): PEER_DATABASE_URL=... PEER_API_KEY=... python -m uvicorn app:app
  --app-dir Benchmarks/peer --workers 2 --loop uvloop --http httptools --no-access-log
"""
import base64
import binascii
import contextlib
import datetime
import hashlib
import hmac
import os

import asyncpg
import cbor2
import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

UTC = datetime.timezone.utc
CLOCK_SKEW = datetime.timedelta(seconds=120)
MAX_BODY = 64 * 1024
CURVE = ec.SECP256R1()
ECDSA_SHA256 = ec.ECDSA(hashes.SHA256())
JSON = "application/json"


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


APP_ID = os.environ.get("PEER_APP_ID", "ABCDE12345.com.example.bench")
APPS = {APP_ID: {"rp_id_hash": _sha256(APP_ID.encode()), "environments": {"development"}}}
API_KEYS = {"bench": {"secret": os.environ.get("PEER_API_KEY", "").encode(), "scopes": {"verify"}, "apps": {"*"}}}


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _json(status: int, payload) -> Response:
    return Response(orjson.dumps(payload), status_code=status, media_type=JSON)


def _error(error: ApiError) -> Response:
    return _json(error.status, {"error": {"code": error.code, "message": error.message}})


def _bad(code: str, message: str) -> ApiError:
    return ApiError(400, code, message)


def _check(code: str, message: str) -> ApiError:  # a failed verification check
    return ApiError(422, code, message)


# ---- input helpers -------------------------------------------------------------------------------------------

def _text(obj: dict, name: str, max_length: int, required: bool = True):
    value = obj.get(name)
    if value is None:
        if required:
            raise _bad("missing_field", f"{name} is required")
        return None
    if not isinstance(value, str):
        raise _bad("invalid_field", f"{name} must be a string")
    if len(value) > max_length:
        raise _bad("invalid_field", f"{name} is longer than {max_length} characters")
    return value


def _b64(text: str, name: str, max_bytes: int) -> bytes:
    if len(text) > (max_bytes + 2) // 3 * 4:
        raise _bad("invalid_field", f"{name} is larger than {max_bytes} bytes")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise _bad("malformed_base64", f"{name} is not base64") from None


def _b64url(text: str):
    """base64url without padding (padding tolerated); None if malformed."""
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        return None


def _authenticate(request: Request, scope: str) -> dict:
    header = request.headers.get("authorization")
    if header is None or len(header) <= 7 or header[:7].lower() != "bearer ":
        raise ApiError(401, "unauthorized", "send a valid API key as Authorization: Bearer <key>")
    token = header[7:].encode()
    for key in API_KEYS.values():
        if key["secret"] and hmac.compare_digest(token, key["secret"]):
            if scope not in key["scopes"]:
                raise ApiError(403, "forbidden", f"the API key lacks the {scope} scope")
            return key
    raise ApiError(401, "unauthorized", "send a valid API key as Authorization: Bearer <key>")


# ---- SQL -----------------------------------------------------------------------------------------------------

SELECT_KEY = """
    SELECT user_id, public_key, counter, status FROM app_keys WHERE app_id = $1 AND key_id = $2
"""
CONSUME_CHALLENGE = """
    UPDATE challenges
    SET consumed_at = $5, consumed_key_id = $4, consumed_counter = $7, consumed_request = $8::jsonb
    WHERE id = $1 AND app_id = $2 AND purpose = 'assertion'
      AND consumed_at IS NULL AND expires_at > $6
      AND (user_id IS NULL OR user_id = $3) AND (key_id IS NULL OR key_id = $4)
    RETURNING id
"""
ADVANCE_COUNTER = """
    UPDATE app_keys SET counter = $3, last_assertion_at = $4
    WHERE app_id = $1 AND key_id = $2 AND status = 'active' AND counter < $3
    RETURNING key_id
"""
SELECT_CHALLENGE = """
    SELECT app_id, purpose, user_id, key_id, expires_at, consumed_at, consumed_key_id, consumed_counter
    FROM challenges WHERE id = $1
"""


class _Rollback(Exception):
    pass


async def _diagnose(conn, challenge: bytes, app_id: str, user_id: str, key_id: bytes, counter: int, now) -> ApiError:
    """Why the commit changed no row: the challenge first, then the key (AttestGuard's order and codes)."""
    row = await conn.fetchrow(SELECT_CHALLENGE, challenge)
    if row is None:
        return _check("challenge_not_found", "no challenge with this id was issued (or it was purged)")
    if row["consumed_at"] is not None:
        if row["consumed_key_id"] == key_id and row["consumed_counter"] == counter:
            return ApiError(409, "assertion_already_accepted",
                            f"an assertion with counter {counter} of this key was already accepted with this challenge")
        return ApiError(409, "challenge_used", "the challenge was already consumed")
    if row["app_id"] != app_id or row["purpose"] != "assertion":
        return _check("challenge_mismatch", "the challenge was issued for another app or purpose")
    if row["user_id"] is not None and row["user_id"] != user_id:
        return _check("challenge_mismatch", "the challenge was issued to another user")
    if row["key_id"] is not None and row["key_id"] != key_id:
        return _check("challenge_mismatch", "the challenge was issued for another key")
    if row["expires_at"] <= now - CLOCK_SKEW:
        return _check("challenge_expired", f"the challenge expired at {row['expires_at'].isoformat()}")
    key = await conn.fetchrow(SELECT_KEY, app_id, key_id)
    if key is None:
        return ApiError(404, "key_not_found", "the key is not registered")
    if key["status"] == "revoked":
        return _check("key_revoked", "the key was revoked")
    if key["status"] == "superseded":
        return _check("key_superseded", "a newer key replaced this one on the same device")
    if key["counter"] >= counter:
        return _check("counter_not_increasing",
                      f"the assertion counter {counter} is not greater than the stored counter {key['counter']}")
    return ApiError(503, "store_unavailable", "the assertion rolled back but no condition fails now")


# ---- routes --------------------------------------------------------------------------------------------------

async def healthz(request: Request) -> Response:
    return Response(b'{"status":"ok"}', media_type=JSON)


async def assertions(request: Request) -> Response:
    try:
        return await _assert(request)
    except ApiError as error:
        return _error(error)
    except (asyncpg.PostgresConnectionError, OSError):
        return Response(orjson.dumps({"error": {"code": "store_unavailable", "message": "the store is unreachable"}}),
                        status_code=503, media_type=JSON, headers={"Retry-After": "1"})


async def _assert(request: Request) -> Response:
    api_key = _authenticate(request, "verify")
    content_type = request.headers.get("content-type", "")
    if not content_type.startswith(JSON):
        raise ApiError(415, "unsupported_media_type", "send Content-Type: application/json")
    body = await request.body()
    if len(body) > MAX_BODY:
        raise ApiError(413, "body_too_large", f"the body is larger than {MAX_BODY} bytes")
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise _bad("malformed_json", "the body is not JSON") from None
    if not isinstance(data, dict):
        raise _bad("malformed_json", "the body is not a JSON object")

    app_id = _text(data, "appId", 256)
    key_id_text = _text(data, "keyId", 44)
    assertion_text = _text(data, "assertion", 8192)
    client_data_text = _text(data, "clientData", 8192)
    user_id = _text(data, "userId", 256)
    req = data.get("request")
    if req is None:
        raise _bad("missing_field", "request is required")
    if not isinstance(req, dict):
        raise _bad("invalid_field", "request must be an object")
    method = _text(req, "method", 16)
    path = _text(req, "path", 4096)
    body_sha256 = _text(req, "bodySha256", 43)
    _text(req, "ip", 64, required=False)
    _text(req, "action", 64, required=False)
    attributes = req.get("attributes")
    if attributes is not None and (not isinstance(attributes, dict) or len(attributes) > 64):
        raise _bad("invalid_field", "request.attributes must be an object of at most 64 entries")
    if not method:
        raise _bad("invalid_field", "request.method is empty")
    if len(body_sha256) != 43 or (digest := _b64url(body_sha256)) is None or len(digest) != 32:
        raise _bad("invalid_field", "request.bodySha256 must be the base64url SHA-256 of the body (43 characters)")
    if "*" not in api_key["apps"] and app_id not in api_key["apps"]:
        raise ApiError(403, "forbidden", f"this API key may not use app {app_id}")
    if len(key_id_text) != 44 or not key_id_text.endswith("=") or "-" in key_id_text or "_" in key_id_text:
        raise _bad("invalid_field", "keyId must be the standard base64 of 32 bytes (44 characters)")
    key_id = _b64(key_id_text, "keyId", 64)
    if len(key_id) != 32:
        raise _bad("invalid_field", "keyId must be 32 bytes (SHA-256 of the public key)")
    assertion = _b64(assertion_text, "assertion", 4096)
    client_data = _b64url(client_data_text)
    if client_data is None:
        raise _bad("malformed_base64", "clientData is not base64url")
    if not user_id:
        raise _bad("invalid_field", "userId is empty")

    app = APPS.get(app_id)
    if app is None:
        raise ApiError(404, "app_not_found", f"no app {app_id} is configured")

    pool: asyncpg.Pool = request.app.state.pool
    async with pool.acquire() as conn:
        key = await conn.fetchrow(SELECT_KEY, app_id, key_id)
        if key is None:
            raise ApiError(404, "key_not_found", f"no key with this id is registered for {app_id}")
        if key["user_id"] != user_id:
            raise _check("key_user_mismatch", "the key belongs to another user")
        if key["status"] == "revoked":
            raise _check("key_revoked", "the key was revoked")
        if key["status"] == "superseded":
            raise _check("key_superseded", "a newer key replaced this one on the same device")

        # The assertion: CBOR {signature, authenticatorData}; the signature covers the nonce as a message.
        try:
            public_key = ec.EllipticCurvePublicKey.from_encoded_point(CURVE, key["public_key"])
        except ValueError:
            raise ApiError(500, "internal", "the stored public key is not a P-256 point") from None
        try:
            obj = cbor2.loads(assertion)
        except Exception:  # cbor2 raises several types on malformed input
            raise _check("malformed_assertion", "the assertion is not CBOR") from None
        signature = obj.get("signature") if isinstance(obj, dict) else None
        auth_data = obj.get("authenticatorData") if isinstance(obj, dict) else None
        if not isinstance(signature, bytes) or not isinstance(auth_data, bytes):
            raise _check("malformed_assertion", "the assertion is not a map of signature and authenticatorData")
        if len(auth_data) < 37:
            raise _check("malformed_authenticator_data", "authenticatorData is shorter than 37 bytes")
        nonce = _sha256(auth_data + _sha256(client_data))
        try:
            public_key.verify(signature, nonce, ECDSA_SHA256)
        except InvalidSignature:
            raise _check("signature_invalid", "signature does not verify over the nonce with the registered key") from None
        if auth_data[:32] != app["rp_id_hash"]:
            raise _check("rp_id_mismatch", "RP ID hash is not SHA-256 of the app id")
        counter = int.from_bytes(auth_data[33:37], "big")
        if counter <= 0:
            raise _check("counter_not_increasing", f"counter {counter} is not greater than 0")

        # clientData v1, bound to the gateway's request.
        try:
            cd = orjson.loads(client_data)
        except orjson.JSONDecodeError:
            cd = None
        if (not isinstance(cd, dict) or type(cd.get("v")) is not int or not isinstance(cd.get("challenge"), str)
                or not isinstance(cd.get("method"), str) or not isinstance(cd.get("path"), str)
                or not isinstance(cd.get("bodySha256"), str)):
            raise _check("malformed_client_data", "clientData is not v1 JSON {v, challenge, method, path, bodySha256}")
        if cd["v"] != 1:
            raise _check("malformed_client_data", f"clientData version {cd['v']} is not 1")
        challenge = _b64url(cd["challenge"])
        if challenge is None or len(challenge) != 32:
            raise _check("malformed_client_data", "the challenge in clientData is not 32 bytes of base64url")
        if cd["method"] != method or cd["path"] != path or cd["bodySha256"] != body_sha256:
            raise _check("request_binding_mismatch", "the assertion signed another request")

        # Commit: one transaction, two conditional statements, each must change exactly one row.
        now = datetime.datetime.now(UTC)
        if counter > key["counter"]:
            context = orjson.dumps(req, option=orjson.OPT_SORT_KEYS).decode()
            try:
                async with conn.transaction():
                    if await conn.fetchval(CONSUME_CHALLENGE, challenge, app_id, user_id, key_id, now,
                                           now - CLOCK_SKEW, counter, context) is None:
                        raise _Rollback()
                    if await conn.fetchval(ADVANCE_COUNTER, app_id, key_id, counter, now) is None:
                        raise _Rollback()
            except _Rollback:
                raise await _diagnose(conn, challenge, app_id, user_id, key_id, counter, now) from None
        else:  # stale or replayed: no transaction can succeed; tell a replay (409) from a stale counter (422)
            raise await _diagnose(conn, challenge, app_id, user_id, key_id, counter, now)

    return _json(200, {
        "keyId": key_id_text,
        "counter": counter,
        "clientDataFormat": "v1",
        "requestBinding": "verified",
        # Minimal verdict: no rules engine (AttestGuard evaluates its rule set over a scoring read here).
        "verdict": {"decision": "allow", "score": 0, "reasons": [], "ruleSetVersion": "none", "enforced": True},
    })


@contextlib.asynccontextmanager
async def _lifespan(app):
    size = int(os.environ.get("PEER_POOL_SIZE", "8"))
    app.state.pool = await asyncpg.create_pool(os.environ["PEER_DATABASE_URL"], min_size=size, max_size=size)
    try:
        yield
    finally:
        await app.state.pool.close()


app = Starlette(
    routes=[Route("/healthz", healthz, methods=["GET"]), Route("/v1/assertions", assertions, methods=["POST"])],
    lifespan=_lifespan,
)
