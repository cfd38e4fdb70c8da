-- wrk script of Benchmarks/gateway.sh. Run wrk with `-t C -c C` (one connection per thread, so each thread's
-- requests go out one after another, in order) and:
--
--   wrk ... -s gateway.lua URL -- MODE RESULT_FILE HEADER_DIR OFFSETS_IN OFFSETS_OUT [RATE CONNECTIONS]
--
-- Every request is the one the assertions were signed for: POST /api/orders with {"item":"sku-1"}, basic auth as
-- thread i's user (line 1 of HEADER_DIR/key-<i>.txt: the Authorization value).
--   MODE direct:   nothing else (the gateway's direct server: no AttestGuard).
--   MODE attested: also the X-AppAttest-* headers of the next line of the file (`keyId assertion clientData`, one
--                  single-use assertion per line, in counter order), starting after the line OFFSETS_IN gives the
--                  thread ("-": none); OFFSETS_OUT gets how far each thread got, so the next round never replays one.
--   MODE token:    POST /api/feed with X-AppAttest-Token: the thread's session token (HEADER_DIR/token-<i>.txt).
--   MODE auth:     straight to AttestGuard, no nginx: GET /v1/gateway/auth with the headers attestguard.conf's
--                  forward-auth subrequest sends for an attested request (the gateway key $GATEWAY_KEY, the user
--                  bench-user-<i>, the body's hash $BENCH_BODY_SHA256, the next single-use assertion as in attested).
-- RATE (requests/s per connection; absent or "-": closed loop) paces every connection on a fixed schedule, with
-- latency charged from the scheduled send (Benchmarks/http/schedule.lua, the clock of every request either way).
-- done() writes one line to RESULT_FILE:
--   requests=N duration_s=S rps=R p50_ms=.. p99_ms=.. mean_ms=.. late_ms_p99=.. non200=N statuses=CODE:N,...
--   socket_errors=N exhausted=N first_error=...
-- With $BENCH_SAMPLES_FILE set, it also writes every request's start (ms, CLOCK_MONOTONIC) and latency (ms) there, one
-- line each in order of start, for Benchmarks/http/tail.py.

local schedule = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "../http/schedule.lua")

local threads = {}
local next_id = 0

function setup(thread)
   thread:set("id", next_id)
   next_id = next_id + 1
   table.insert(threads, thread)
end

local function read_offsets(path)
   local offsets = {}
   if path and path ~= "-" then
      local file = io.open(path, "r")
      if file then
         for line in file:lines() do
            local key, pos = line:match("^(%d+) (%d+)$")
            if key then offsets[tonumber(key)] = tonumber(pos) end
         end
         file:close()
      end
   end
   return offsets
end

local body = '{"item":"sku-1"}'

function init(args)
   mode = args[1]
   result_file = args[2]
   offsets_out = args[5]
   non200, exhausted, first_error, statuses = 0, 0, "", {}
   samples_file = os.getenv("BENCH_SAMPLES_FILE")
   local paced = args[6] and args[6] ~= "-" and tonumber(args[6]) or nil
   -- Line 1 of the key's file is its Authorization value; in attested and auth modes the assertions follow, and
   -- only those modes read them (a key's file holds tens of thousands).
   local key_path = args[3] .. "/key-" .. id .. ".txt"
   lines = {}
   if mode == "attested" or mode == "auth" then
      for line in io.lines(key_path) do lines[#lines + 1] = line end
   else
      local file = assert(io.open(key_path, "r"))
      lines[1] = file:read("*l")
      file:close()
   end
   headers = { ["Content-Type"] = "application/json", ["Authorization"] = lines[1] }
   if mode == "direct" then
      direct_request = wrk.format("POST", "/api/orders", headers, body)
   elseif mode == "token" then
      local file = assert(io.open(args[3] .. "/token-" .. id .. ".txt", "r"))
      headers["X-AppAttest-Token"] = file:read("*l")
      file:close()
      direct_request = wrk.format("POST", "/api/feed", headers, body)
   else
      assert(mode == "attested" or mode == "auth", "mode must be direct, attested, token or auth, got " .. tostring(mode))
      if mode == "auth" then
         headers = {
            ["Authorization"] = "Bearer " .. assert(os.getenv("GATEWAY_KEY"), "set GATEWAY_KEY"),
            ["X-Original-Method"] = "POST",
            ["X-Original-URI"] = "/api/orders",
            ["X-AttestGuard-User"] = "bench-user-" .. id,
            ["X-AttestGuard-Client-IP"] = "127.0.0.1",
            ["X-AttestGuard-Body-Sha256"] = assert(os.getenv("BENCH_BODY_SHA256"), "set BENCH_BODY_SHA256"),
         }
      end
      -- Each assertion is formatted into its request when it is sent: a key's file holds far more than a round
      -- sends, and formatting them all here would keep the cores busy while the other threads' rounds begin.
      -- pos: how many of the key's assertions have been taken (line pos + 1 is the last one taken; wrk takes one
      -- request from thread 0 to check the script, and that assertion is never sent, as before).
      pos = read_offsets(args[4])[id] or 0
   end
   -- The schedule begins once the thread is ready to send, so that its setup is not charged to its first requests.
   schedule.start(paced, id, paced and assert(tonumber(args[7]), "a paced run needs the connection count") or 1)
end

function request()
   if mode == "direct" or mode == "token" then
      schedule.sent()
      return direct_request
   end
   if pos >= #lines - 1 then
      -- Out of single-use assertions: stop this thread (the run is reported as invalid). wrk still needs a request.
      exhausted = 1
      wrk.thread:stop()
      return wrk.format("GET", "/")
   end
   pos = pos + 1
   local key_id, assertion, client_data = lines[pos + 1]:match("^(%S+) (%S+) (%S+)$")
   headers["X-AppAttest-KeyId"] = key_id
   headers["X-AppAttest-Assertion"] = assertion
   headers["X-AppAttest-ClientData"] = client_data
   schedule.sent()
   if mode == "auth" then return wrk.format("GET", "/v1/gateway/auth", headers) end
   return wrk.format("POST", "/api/orders", headers, body)
end

function response(status, headers, response_body)
   schedule.answered()
   if status ~= 200 then
      non200 = non200 + 1
      statuses[status] = (statuses[status] or 0) + 1
      if first_error == "" then first_error = tostring(status) .. " " .. tostring(response_body) end
   end
end

function done(summary, latency, requests_done)
   local non200_total, exhausted_total, first, by_status, positions = 0, 0, "", {}, {}
   local out, offsets_path, run_mode, samples_path
   for _, thread in ipairs(threads) do
      out, offsets_path, run_mode = thread:get("result_file"), thread:get("offsets_out"), thread:get("mode")
      samples_path = samples_path or thread:get("samples_file")
      non200_total = non200_total + (thread:get("non200") or 0)
      exhausted_total = exhausted_total + (thread:get("exhausted") or 0)
      for code, count in pairs(thread:get("statuses") or {}) do by_status[code] = (by_status[code] or 0) + count end
      if first == "" then first = thread:get("first_error") or "" end
      if run_mode == "attested" or run_mode == "auth" then positions[#positions + 1] = string.format("%d %d", thread:get("id"), thread:get("pos")) end
   end
   if (run_mode == "attested" or run_mode == "auth") and offsets_path and offsets_path ~= "-" then
      local file = assert(io.open(offsets_path, "w"))
      file:write(table.concat(positions, "\n"), "\n")
      file:close()
   end
   local codes = {}
   for code, count in pairs(by_status) do codes[#codes + 1] = string.format("%s:%d", code, count) end
   table.sort(codes)
   local errors = summary.errors
   local seconds = summary.duration / 1e6
   local collected = schedule.collect(threads, samples_path ~= nil)
   if samples_path then
      table.sort(collected.samples)
      local file = assert(io.open(samples_path, "w"))
      file:write(table.concat(collected.samples, "\n"), "\n")
      file:close()
   end
   local figures = schedule.figures(collected)
   local line = string.format(
      "requests=%d duration_s=%.3f rps=%.1f p50_ms=%.3f p99_ms=%.3f mean_ms=%.3f late_ms_p99=%.3f non200=%d statuses=%s socket_errors=%d exhausted=%d first_error=%s",
      summary.requests, seconds, summary.requests / seconds, figures.p50, figures.p99, figures.mean, figures.late_p99,
      non200_total, #codes > 0 and table.concat(codes, ",") or "-",
      errors.connect + errors.read + errors.write + errors.timeout, exhausted_total, (first:gsub("\n", " ")):sub(1, 200))
   local file = assert(io.open(out, "w"))
   file:write(line, "\n")
   file:close()
end
