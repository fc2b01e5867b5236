-- SPDX-License-Identifier: GPL-2.0
-- alloc.lua: a table and string churn for perf dprof's scripts/bench-alloc.sh
--
--   lua alloc.lua [SECONDS]      (default 3; CPU seconds of work)
--
-- Records (a table with a string and a small array table in it) are made in
-- rounds into a ring of live ones, each replacing the one made RING records
-- earlier, which becomes garbage; between two records made, a few records
-- of the ring are read and written, and a string is joined from two of
-- them, so that a sampling profiler sees accesses to heap objects, not only
-- to the interpreter's own state.  About 1 million allocations (l_alloc
-- calls with a size) a second on a 2-CPU VM.  Prints one line: the rounds.

local secs = tonumber(arg and arg[1]) or 3
local RING = 8192       -- records alive at a time
local BATCH = 512       -- records made per round
local TOUCH = 6         -- records read and written per record made

local ring = {}
for i = 1, RING do
	ring[i] = false
end

-- a small LCG: the same run every time, whatever the Lua's math.random
local seed = 12345
local function rnd(n)
	seed = (seed * 1103515245 + 12345) % 2147483648
	return seed % n + 1
end

local function make(id)
	return {
		id = id,
		hits = 0,
		sum = 0,
		name = "rec:" .. id,
		vals = { id % 7, id % 11, id % 13, 0 },
	}
end

local id, rounds, slot, acc = 0, 0, 0, 0
local t0 = os.clock()
repeat
	for _ = 1, BATCH do
		id = id + 1
		slot = slot % RING + 1
		ring[slot] = make(id)
		for _ = 1, TOUCH do
			local r = ring[rnd(RING)]
			if r then
				local v = r.vals
				r.hits = r.hits + 1
				v[4] = v[4] + v[1] * v[2] - v[3]
				r.sum = r.sum + v[4] + #r.name
				acc = acc + r.sum % 97
			end
		end
		-- a string of two records' names: made, read, dropped
		local a, b = ring[rnd(RING)], ring[rnd(RING)]
		if a and b then
			local s = a.name .. "/" .. b.name
			acc = acc + #s + s:byte(-1)
		end
	end
	rounds = rounds + 1
until os.clock() - t0 >= secs

print(string.format("alloc.lua: %d rounds, %d records made in %.2f s (check %d)",
	rounds, id, os.clock() - t0, acc % 1000003))
