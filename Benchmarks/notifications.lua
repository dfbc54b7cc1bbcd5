-- wrk script for Benchmarks/notifications.sh: POSTs the bodies of $BODIES (one JSON body per
-- line) in order to /apple/notifications, starting at line $FIRST (the gate used line 1),
-- and counts answers other than 200 and how often the list wrapped (a wrapped body is a
-- duplicate: verified again, not stored again). Use -t 1: each wrk thread has its own copy.
local bodies = {}
local index = 0
wraps = 0      -- globals: done() reads them with thread:get
non200 = 0
local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

function init(args)
    for line in io.lines(os.getenv("BODIES")) do
        bodies[#bodies + 1] = line
    end
    index = tonumber(os.getenv("FIRST") or "1") - 1
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
end

function request()
    index = index + 1
    if index > #bodies then
        index = 1
        wraps = wraps + 1
    end
    return wrk.format(nil, nil, nil, bodies[index])
end

function response(status, headers, body)
    if status ~= 200 then
        non200 = non200 + 1
        if non200 <= 3 then io.stderr:write("non-200: " .. status .. " " .. body .. "\n") end
    end
end

function done(summary, latency, requests)
    local bad, wrapped = 0, 0
    for _, thread in ipairs(threads) do
        bad = bad + thread:get("non200")
        wrapped = wrapped + thread:get("wraps")
    end
    io.write(string.format("RESULT requests=%d seconds=%.3f rps=%.0f p50_us=%d p99_us=%d non200=%d errors=%d wraps=%d\n",
        summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
        latency:percentile(50), latency:percentile(99), bad,
        summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout,
        wrapped))
end
