-- POSTs records/modify requests that each create one Note, server-named, in a zone picked at
-- random per request among ZONES zones named z0 … z(ZONES-1); FIELDS holds the record's fields
-- as JSON members.
local zones = tonumber(os.getenv("ZONES") or "64")
local fields = os.getenv("FIELDS")
local template = '{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{'
    .. fields .. '}}}],"zoneID":{"zoneName":"z%d"},"desiredKeys":[]}'

function setup(thread)
    thread:set("seed", math.random(1, 2147483647))
end

function init(args)
    math.randomseed(seed + os.time())
end

function request()
    local body = string.format(template, math.random(0, zones - 1))
    return wrk.format("POST", nil, {["Content-Type"] = "text/plain"}, body)
end
