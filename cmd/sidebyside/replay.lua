-- The wrk script of cmd/sidebyside -wrk (see wrk.go). Arguments: a file of
-- request bodies and a file of the replies the verified walk recorded, each
-- item framed as its length in bytes on a line, then its bytes. Every thread
-- sends the bodies round robin; a reply that is not a 200 byte-identical to
-- one of the recorded replies counts as mismatched.
local function items(path)
	local f = assert(io.open(path, "rb"))
	local t = {}
	while true do
		local n = f:read("*n")
		if not n then break end
		f:read(1)
		t[#t + 1] = f:read(n)
	end
	f:close()
	return t
end

local threads = {}

function setup(thread)
	table.insert(threads, thread)
end

function init(args)
	requests = {}
	for i, body in ipairs(items(args[1])) do
		requests[i] = wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
	end
	known = {}
	for _, reply in ipairs(items(args[2])) do
		known[reply] = true
	end
	next_request, mismatched = 0, 0
end

function request()
	next_request = next_request % #requests + 1
	return requests[next_request]
end

function response(status, headers, body)
	if status ~= 200 or not known[body] then
		mismatched = mismatched + 1
	end
end

function done(summary, latency, requests)
	local m = 0
	for _, t in ipairs(threads) do
		m = m + t:get("mismatched")
	end
	local e = summary.errors
	io.write(string.format("sidebyside: %d requests, %d mismatched, %d errors, %d us\n",
		summary.requests, m, e.connect + e.read + e.write + e.timeout, summary.duration))
end
