-- wrk script of Benchmarks/http.sh. Run wrk with `-t C -c C` (one connection per thread, so each thread's
-- requests go out one after another, in order) and one of:
--
--   wrk ... -s bench.lua URL -- healthz RESULT_FILE
--       GET /healthz
--   wrk ... -s bench.lua URL -- assertions RESULT_FILE BODY_DIR OFFSETS_IN OFFSETS_OUT
--       POST /v1/assertions; thread i sends the lines of BODY_DIR/key-<i>.txt (one key's single-use assertion
--       bodies, in counter order) in order, starting after the line OFFSETS_IN gives for it ("-": none), and
--       writes how far each thread got (the last line it SENT, answered or not) to OFFSETS_OUT, so that a
--       following run continues without ever replaying a body. Needs $BENCH_API_KEY.
--   wrk ... -s bench.lua URL -- score RESULT_FILE BODIES_FILE RATE CONNECTIONS
--       POST /v1/score with the lines of BODIES_FILE (not single-use: thread i starts at its share of the file and
--       goes round). RATE "-": closed loop, each connection sends its next request when the previous one is
--       answered. RATE R (requests/s per connection): paced, each connection sends on a fixed schedule of R per
--       second (wrk's delay() hook, millisecond timers, sent up to 1 ms early, never skipped). Latency is then
--       measured from the time the schedule meant to send (or the actual send, if earlier) to the response, so a
--       request queued behind a slow one is charged its wait, as a gateway's user would be (no coordinated
--       omission, as in wrk2). Needs $BENCH_API_KEY.
--
-- Every response that is not exactly 200 is counted (by status), and done() writes one line to RESULT_FILE:
--   requests=N duration_s=S rps=R p50_ms=.. p90_ms=.. p99_ms=.. mean_ms=.. max_ms=.. non200=N statuses=CODE:N,...
--   socket_errors=N exhausted=N first_error=...
-- exhausted counts threads that ran out of bodies (the run is then invalid: prepare more per key).
-- In score mode the percentiles come from this script's own per-request clock (CLOCK_MONOTONIC through LuaJIT's
-- FFI), not wrk's, and the line adds late_ms_p99=.. (how far behind its schedule the p99 send went; paced only).

local ffi = require("ffi")
ffi.cdef [[
   typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
   int clock_gettime(int clock, bench_timespec *now);
]]
local timespec = ffi.new("bench_timespec")
local function now_ms()
   ffi.C.clock_gettime(1, timespec) -- CLOCK_MONOTONIC
   return tonumber(timespec.tv_sec) * 1000 + tonumber(timespec.tv_nsec) / 1e6
end

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

function init(args)
   mode = args[1]
   result_file = args[2]
   non200 = 0
   statuses = {}
   exhausted = 0
   first_error = ""
   if mode == "healthz" then
      healthz_request = wrk.format("GET", "/healthz")
   elseif mode == "assertions" then
      body_dir = args[3]
      offsets_out = args[5]
      local key = os.getenv("BENCH_API_KEY")
      assert(key and #key > 0, "set BENCH_API_KEY")
      local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key }
      bodies = {}
      local path = body_dir .. "/key-" .. id .. ".txt"
      for line in io.lines(path) do
         bodies[#bodies + 1] = wrk.format("POST", "/v1/assertions", headers, line)
      end
      pos = read_offsets(args[4])[id] or 0
   elseif mode == "score" then
      local key = os.getenv("BENCH_API_KEY")
      assert(key and #key > 0, "set BENCH_API_KEY")
      local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key }
      bodies = {}
      for line in io.lines(args[3]) do
         bodies[#bodies + 1] = wrk.format("POST", "/v1/score", headers, line)
      end
      assert(#bodies > 0, "no score bodies in " .. args[3])
      local thread_count = assert(tonumber(args[5]), "score needs the connection count")
      pos = math.floor(id * #bodies / thread_count) % #bodies
      rate = args[4] ~= "-" and tonumber(args[4]) or nil
      latencies = {}
      lateness = {}
      if rate then
         interval_ms = 1000 / rate
         -- Spread the connections' schedules over one interval so they do not all send at the same instant.
         next_at = now_ms() + interval_ms * id / thread_count
         -- wrk asks the first thread's script for delay() after init, and then times every request through it:
         -- defined only when paced, so the closed-loop runs pay no timer hop.
         delay = paced_delay
      end
   else
      error("mode must be healthz, assertions or score, got " .. tostring(mode))
   end
end

-- Paced score mode only (installed as the global delay() by init): milliseconds until the schedule's next send,
-- rounded down.
function paced_delay()
   local wait = next_at - now_ms()
   if wait <= 0 then return 0 end
   return math.floor(wait)
end

function request()
   if mode == "healthz" then return healthz_request end
   if mode == "score" then
      local sent = now_ms()
      if rate then
         started = math.min(next_at, sent)
         lateness[#lateness + 1] = math.max(0, sent - next_at)
         next_at = next_at + interval_ms
      else
         started = sent
      end
      pos = pos % #bodies + 1
      return bodies[pos]
   end
   if pos >= #bodies then
      -- Out of single-use bodies: stop this thread (the run is reported as invalid). wrk still needs a request.
      exhausted = 1
      wrk.thread:stop()
      return wrk.format("GET", "/healthz")
   end
   pos = pos + 1
   return bodies[pos]
end

function response(status, headers, body)
   if mode == "score" then latencies[#latencies + 1] = now_ms() - started end
   if status ~= 200 then
      non200 = non200 + 1
      statuses[status] = (statuses[status] or 0) + 1
      if first_error == "" then first_error = tostring(status) .. " " .. tostring(body) end
   end
end

function done(summary, latency, requests)
   local non200_total, exhausted_total, first = 0, 0, ""
   local by_status = {}
   local run_mode, out, offsets_path = nil, nil, nil
   local positions = {}
   local measured, late = {}, {}
   for _, thread in ipairs(threads) do
      run_mode = thread:get("mode")
      out = thread:get("result_file")
      offsets_path = thread:get("offsets_out")
      non200_total = non200_total + (thread:get("non200") or 0)
      exhausted_total = exhausted_total + (thread:get("exhausted") or 0)
      for code, count in pairs(thread:get("statuses") or {}) do
         by_status[code] = (by_status[code] or 0) + count
      end
      if first == "" then first = thread:get("first_error") or "" end
      if run_mode == "score" then
         for _, value in ipairs(thread:get("latencies") or {}) do measured[#measured + 1] = value end
         for _, value in ipairs(thread:get("lateness") or {}) do late[#late + 1] = value end
      end
      if run_mode == "assertions" then
         positions[#positions + 1] = string.format("%d %d", thread:get("id"), thread:get("pos"))
      end
   end
   if run_mode == "assertions" and offsets_path then
      local file = assert(io.open(offsets_path, "w"))
      file:write(table.concat(positions, "\n"), "\n")
      file:close()
   end
   local codes = {}
   for code, count in pairs(by_status) do codes[#codes + 1] = string.format("%s:%d", code, count) end
   table.sort(codes)
   local errors = summary.errors
   local seconds = summary.duration / 1e6
   -- Percentiles in ms: wrk's histogram, or in score mode this script's own measurements (nearest rank).
   local p50, p90, p99 = latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000
   local mean, max = latency.mean / 1000, latency.max / 1000
   local late_p99 = 0
   local function rank(sorted, percent)
      if #sorted == 0 then return 0 end
      return sorted[math.max(1, math.ceil(#sorted * percent / 100))]
   end
   if run_mode == "score" then
      table.sort(measured)
      table.sort(late)
      p50, p90, p99 = rank(measured, 50), rank(measured, 90), rank(measured, 99)
      local sum = 0
      for _, value in ipairs(measured) do sum = sum + value end
      mean = #measured > 0 and sum / #measured or 0
      max = measured[#measured] or 0
      late_p99 = rank(late, 99)
   end
   local line = string.format(
      "requests=%d duration_s=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f mean_ms=%.3f max_ms=%.3f "
         .. "late_ms_p99=%.3f non200=%d statuses=%s socket_errors=%d exhausted=%d first_error=%s",
      summary.requests, seconds, summary.requests / seconds,
      p50, p90, p99, mean, max, late_p99,
      non200_total, #codes > 0 and table.concat(codes, ",") or "-",
      errors.connect + errors.read + errors.write + errors.timeout, exhausted_total,
      (first:gsub("[\r\n]", " ")):sub(1, 300))
   io.write("RESULT ", line, "\n")
   if out then
      local file = assert(io.open(out, "w"))
      file:write(line, "\n")
      file:close()
   end
end
