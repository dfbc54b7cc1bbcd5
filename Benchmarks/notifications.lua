-- wrk script for Benchmarks/notifications.sh: POSTs the bodies of $BODIES (one JSON body per
-- line) in order to /apple/notifications, starting at line $FIRST (the gate used line 1),
-- and counts answers other than 200 and how often the list wrapped (a wrapped body is a
-- duplicate: verified again, not stored again). Use -t 1: each wrk thread has its own copy.
-- With $SERVER_PID it also reports the CPU the server and wrk used while requests ran
-- (cpu_server, cpu_wrk in % of one core): loading the bodies takes wrk seconds before the
-- first request, so CPU measured around the whole wrk command undercounts the server's share.
local bodies = {}
local index = 0
wraps = 0      -- globals: done() reads them with thread:get
non200 = 0
local threads = {}
ticks0_server, ticks0_wrk = -1, -1   -- globals too: set in init(), read in done()

-- utime + stime of process `pid` ("self": wrk) in clock ticks, -1 when unreadable.
local function ticks_of(pid)
    local file = pid and io.open("/proc/" .. pid .. "/stat")
    if not file then return -1 end
    local stat = file:read("*a")
    file:close()
    local fields = {}
    for field in (stat:match("%) (.*)$") or ""):gmatch("%S+") do fields[#fields + 1] = field end
    return (tonumber(fields[12]) or -1) + (tonumber(fields[13]) or 0)
end

-- Percent of one core that `ticks` clock ticks are over `seconds`; -1 when not measured.
local function core_percent(ticks, seconds)
    if ticks < 0 or seconds <= 0 then return -1 end
    return 100 * ticks / (tonumber(os.getenv("CLK_TCK") or "100")) / seconds
end

function setup(thread)
    table.insert(threads, thread)
end

function init(args)
    for line in io.lines(os.getenv("BODIES")) do
        bodies[#bodies + 1] = line
    end
    index = tonumber(os.getenv("FIRST") or "1") - 1
    -- Last: wrk starts its clock and the requests right after init().
    ticks0_server, ticks0_wrk = ticks_of(os.getenv("SERVER_PID")), ticks_of("self")
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
    local server1, wrk1 = ticks_of(os.getenv("SERVER_PID")), ticks_of("self")
    local server0, wrk0 = threads[1]:get("ticks0_server"), threads[1]:get("ticks0_wrk")
    local seconds = summary.duration / 1e6
    for _, thread in ipairs(threads) do
        bad = bad + thread:get("non200")
        wrapped = wrapped + thread:get("wraps")
    end
    io.write(string.format("RESULT requests=%d seconds=%.3f rps=%.0f p50_us=%d p99_us=%d non200=%d errors=%d wraps=%d"
        .. " cpu_server=%.0f cpu_wrk=%.0f\n",
        summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
        latency:percentile(50), latency:percentile(99), bad,
        summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout,
        wrapped, core_percent((server0 < 0 or server1 < 0) and -1 or server1 - server0, seconds),
        core_percent(wrk1 - wrk0, seconds)))
end
