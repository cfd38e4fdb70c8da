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
--
-- Every response that is not exactly 200 is counted (by status), and done() writes one line to RESULT_FILE:
--   requests=N duration_s=S rps=R p50_ms=.. p90_ms=.. p99_ms=.. mean_ms=.. max_ms=.. non200=N statuses=CODE:N,...
--   socket_errors=N exhausted=N first_error=...
-- exhausted counts threads that ran out of bodies (the run is then invalid: prepare more per key).

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
   else
      error("mode must be healthz or assertions, got " .. tostring(mode))
   end
end

function request()
   if mode == "healthz" then return healthz_request end
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
   local line = string.format(
      "requests=%d duration_s=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f mean_ms=%.3f max_ms=%.3f "
         .. "non200=%d statuses=%s socket_errors=%d exhausted=%d first_error=%s",
      summary.requests, seconds, summary.requests / seconds,
      latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
      latency.mean / 1000, latency.max / 1000,
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
