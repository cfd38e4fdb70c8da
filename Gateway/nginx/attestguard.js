// AttestGuard forward-auth for nginx with njs (0.7.9 or later), used by attestguard.conf. Written for njs 0.7.9:
// no destructuring and no for...of (that version rejects both).
//
// guard() is the js_content handler of the protected location. nginx has already read the body into one memory
// buffer (client_body_buffer_size, a little larger than client_max_body_size) when it runs. It:
//   1. refuses a client header with the trusted prefix that the config cannot overwrite (400);
//   2. refuses a body nginx wrote to a temp file (413): only a body in memory can be hashed and passed on intact;
//   3. hashes the exact body bytes (SHA-256, base64url without padding) into $attestguard_body_sha256;
//   4. asks AttestGuard once, through the internal location /_attestguard (a subrequest);
//   5. on 2xx stores the verdict headers in the $attestguard_* variables and redirects internally to
//      @attestguard_upstream, which proxies the already-read body byte for byte with the verdict headers;
//      on 401/403 answers with the precise status from X-AttestGuard-Status and AttestGuard's JSON body;
//      when AttestGuard cannot be reached or times out, refuses with 503 (fail-closed) or, when
//      $attestguard_failure_mode is "open", passes the request marked X-AttestGuard-Decision: unavailable.
// An internal redirect back into the protected location (error_page, try_files with a URI) finds
// $attestguard_passed set and goes straight to @attestguard_upstream: one forward-auth per client request.
// A request that shows a session token and no assertion never reaches guard(): attestguard.conf sends it down the
// token path (@attestguard_token, plain auth_request).

const crypto = require('crypto');

const PREFIX = 'x-attestguard-';

// Client headers with the trusted prefix that attestguard.conf overwrites or deletes (lower case). Any other name
// with the prefix is refused, because nginx cannot delete a header by prefix.
const OVERWRITTEN = [
    'user', 'client-ip', 'body-sha256', 'decision', 'score', 'reasons', 'key-id', 'rule-set', 'binding',
    'protection', 'monitor', 'status', 'error',
].map((name) => PREFIX + name);

// AttestGuard's verdict headers and the js_var each is stored in for @attestguard_upstream.
const VERDICT = [
    ['X-AttestGuard-Decision', 'attestguard_decision'],
    ['X-AttestGuard-Score', 'attestguard_score'],
    ['X-AttestGuard-Reasons', 'attestguard_reasons'],
    ['X-AttestGuard-Key-Id', 'attestguard_key_id'],
    ['X-AttestGuard-Rule-Set', 'attestguard_rule_set'],
    ['X-AttestGuard-Body-Sha256', 'attestguard_signed_body_sha256'],
    ['X-AttestGuard-Binding', 'attestguard_binding'],
    ['X-AttestGuard-Protection', 'attestguard_protection'],
    ['X-AttestGuard-Monitor', 'attestguard_monitor'],
    ['X-AttestGuard-Status', 'attestguard_status'],
];

// Headers of a refusal that the client gets (the verdict headers stay with the gateway).
const REFUSAL_HEADERS = ['Content-Type', 'WWW-Authenticate', 'Retry-After', 'X-AttestGuard-Status', 'X-AttestGuard-Error'];

function refuse(r, status, code, message, retryAfter) {
    r.headersOut['Content-Type'] = 'application/json';
    if (retryAfter) r.headersOut['Retry-After'] = retryAfter;
    r.return(status, JSON.stringify({ error: { code: code, message: message } }));
}

function pass(r) {
    r.variables.attestguard_passed = '1';
    r.internalRedirect('@attestguard_upstream');
}

async function guard(r) {
    if (r.variables.attestguard_passed === '1') {
        // An internal redirect back into the protected location: AttestGuard has already let this request through.
        r.internalRedirect('@attestguard_upstream');
        return;
    }

    const raw = r.rawHeadersIn;
    for (let i = 0; i < raw.length; i++) {
        const name = raw[i][0];
        const lower = name.toLowerCase();
        if (lower.startsWith(PREFIX) && !OVERWRITTEN.includes(lower)) {
            refuse(r, 400, 'gateway_header_forbidden', 'the request carries ' + name + ', a header only the gateway sets');
            return;
        }
    }

    if (r.variables.request_body_file) {
        refuse(r, 413, 'body_too_large', 'the request body is larger than the gateway hashes in memory');
        return;
    }
    // undefined without a body; an empty body is a zero-length Buffer that njs 0.7.9 cannot hash ("detached buffer").
    const body = r.requestBuffer;
    r.variables.attestguard_body_sha256 = crypto.createHash('sha256').update(body && body.length ? body : '').digest('base64url');

    let reply;
    try {
        reply = await r.subrequest('/_attestguard', { method: 'GET' });
    } catch (e) {
        r.error('attestguard: subrequest failed: ' + e);
        refuse(r, 500, 'gateway_error', 'the gateway could not ask AttestGuard');
        return;
    }
    const precise = reply.headersOut['X-AttestGuard-Status'];

    if (reply.status >= 200 && reply.status < 300) {
        for (let i = 0; i < VERDICT.length; i++) r.variables[VERDICT[i][1]] = reply.headersOut[VERDICT[i][0]] || '';
        pass(r);
        return;
    }

    if ((reply.status === 401 || reply.status === 403) && precise) {
        for (let i = 0; i < REFUSAL_HEADERS.length; i++) {
            const header = REFUSAL_HEADERS[i];
            if (reply.headersOut[header]) r.headersOut[header] = reply.headersOut[header];
        }
        const status = /^[45][0-9][0-9]$/.test(precise) ? Number(precise) : reply.status;
        r.return(status, reply.responseText || '');
        return;
    }

    if ((reply.status === 502 || reply.status === 504) && !precise) {
        // nginx's own answer: AttestGuard is unreachable or did not answer within proxy_read_timeout.
        r.warn('attestguard: unavailable (' + reply.status + '), failure mode ' + r.variables.attestguard_failure_mode);
        if (r.variables.attestguard_failure_mode === 'open') {
            for (let i = 0; i < VERDICT.length; i++) r.variables[VERDICT[i][1]] = '';
            r.variables.attestguard_decision = 'unavailable';
            pass(r);
            return;
        }
        refuse(r, 503, 'attestguard_unavailable', 'the request cannot be checked now', '5');
        return;
    }

    // Anything else is a gateway fault (500 gateway_unauthorized: the gateway key is missing, wrong or lacks
    // the scope): refused, with AttestGuard's answer in the error log only.
    r.error('attestguard: unexpected answer ' + reply.status + ': ' + (reply.responseText || '').slice(0, 512));
    refuse(r, 500, 'gateway_error', 'the gateway cannot check this request');
}

export default { guard };
