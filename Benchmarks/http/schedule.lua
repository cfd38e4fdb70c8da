-- The request clock of the benchmarks' wrk scripts (Benchmarks/http/bench.lua, Benchmarks/gateway/gateway.lua),
-- loaded by each with dofile from its own folder's sibling. It times every request on CLOCK_MONOTONIC (LuaJIT's
-- FFI) instead of wrk's histogram and, when paced, sends on a fixed schedule of R requests per second per connection
-- (wrk's delay() hook: millisecond timers, sent up to 1 ms early, never skipped). A paced request's latency runs from
-- the instant the schedule meant to send it (or its actual send, if earlier) to its response, so a request queued
-- behind a slow one is charged its wait, as a gateway's user would be (no coordinated omission, as in wrk2).
--
-- Per thread: schedule.start(rate or nil, id, thread_count) in init(); schedule.sent() in request() when the request
-- returned is a measured one; schedule.answered() in response(). In done(): schedule.collect(threads, with_samples)
-- gathers every thread's figures, and schedule.figures(collected) gives the percentiles.

local ffi = require("ffi")
ffi.cdef [[
   typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
   int clock_gettime(int clock, bench_timespec *now);
]]
local timespec = ffi.new("bench_timespec")

local schedule = {}

function schedule.now_ms()
   ffi.C.clock_gettime(1, timespec) -- CLOCK_MONOTONIC
   return tonumber(timespec.tv_sec) * 1000 + tonumber(timespec.tv_nsec) / 1e6
end

-- Milliseconds until the schedule's next send, rounded down: installed as the global delay() when paced, so the
-- closed-loop runs pay no timer hop.
local function paced_delay()
   local wait = next_at - schedule.now_ms()
   if wait <= 0 then return 0 end
   return math.floor(wait)
end

-- Starts this thread's clock: paced at per_second requests per second when given, else closed loop. The globals it
-- sets are the thread's state, read back by collect() through thread:get().
function schedule.start(per_second, thread_id, thread_count)
   own_clock = true
   rate = per_second
   latencies = {}
   starts = {}
   lateness = {}
   if rate then
      interval_ms = 1000 / rate
      -- Spread the connections' schedules over one interval so they do not all send at the same instant.
      next_at = schedule.now_ms() + interval_ms * thread_id / thread_count
      delay = paced_delay
   end
end

-- Marks a measured request as sent: the instant it is charged from is the schedule's when paced (or the actual
-- send, if earlier).
function schedule.sent()
   local now = schedule.now_ms()
   if rate then
      started = math.min(next_at, now)
      lateness[#lateness + 1] = math.max(0, now - next_at)
      next_at = next_at + interval_ms
   else
      started = now
   end
end

-- Records the answer of the request last marked sent (none yet: nothing to record).
function schedule.answered()
   if not started then return end
   latencies[#latencies + 1] = schedule.now_ms() - started
   starts[#starts + 1] = started
end

-- Every timed thread's latencies and send lateness, and with_samples its (start, latency) samples as lines; timed is
-- false when no thread timed.
function schedule.collect(threads, with_samples)
   local collected = { timed = false, measured = {}, late = {}, samples = {} }
   for _, thread in ipairs(threads) do
      if thread:get("own_clock") then
         collected.timed = true
         local thread_starts = thread:get("starts") or {}
         for index, value in ipairs(thread:get("latencies") or {}) do
            collected.measured[#collected.measured + 1] = value
            if with_samples then
               collected.samples[#collected.samples + 1] = string.format("%.3f %.3f", thread_starts[index], value)
            end
         end
         for _, value in ipairs(thread:get("lateness") or {}) do collected.late[#collected.late + 1] = value end
      end
   end
   return collected
end

-- Nearest-rank percentiles, mean and maximum (ms) of the collected latencies, and the p99 send lateness.
function schedule.figures(collected)
   local measured, late = collected.measured, collected.late
   table.sort(measured)
   table.sort(late)
   local function rank(sorted, percent)
      if #sorted == 0 then return 0 end
      return sorted[math.max(1, math.ceil(#sorted * percent / 100))]
   end
   local sum = 0
   for _, value in ipairs(measured) do sum = sum + value end
   return {
      p50 = rank(measured, 50), p90 = rank(measured, 90), p99 = rank(measured, 99),
      mean = #measured > 0 and sum / #measured or 0, max = measured[#measured] or 0, late_p99 = rank(late, 99),
   }
end

return schedule
