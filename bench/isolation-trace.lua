-- wrk's summary (bench/wrk-report.lua) plus each request's send and receive instants on
-- CLOCK_MONOTONIC, for `bench/isolation.bench.ts --trace`: `wrk ... -s isolation-trace.lua URL -- FILE`
-- appends "sent_ms received_ms" per request to FILE. One connection per thread (a closed loop), so a
-- request is sent right after request() and answered right before response().
local ffi = require('ffi')
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } fw_timespec;
  int clock_gettime(int clock, fw_timespec *ts);
]]
local ts = ffi.new('fw_timespec')
local function now_ms()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local out, sent
init = function(args)
  out = io.open(args[1], 'a')
end
request = function()
  sent = now_ms()
  return wrk.format()
end
response = function()
  out:write(string.format('%.3f %.3f\n', sent, now_ms()))
end

dofile(string.gsub(debug.getinfo(1, 'S').source:sub(2), 'isolation%-trace%.lua$', 'wrk-report.lua'))
