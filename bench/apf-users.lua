-- bench/apf.bench.ts's load: each request from one of four users (the stand-in login filter reads
-- x-user), so APF sees four flows as it did with the Node load client this replaced; wrk's summary
-- line comes from wrk-report.lua beside this file.
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'wrk-report.lua')

local users = { 'alice', 'bob', 'carol', 'dave' }
local next = 0
request = function()
  next = next % #users + 1
  wrk.headers['x-user'] = users[next]
  return wrk.format(nil)
end
