-- POSTs changes/zone requests for the zone ZONE, each from a sync token picked at random among
-- the lines of the file TOKENS (tokens a reader was handed page by page), asking for at most
-- PAGE changes: many clients, each at its own point of the feed, catching up in small pages.
local zone = os.getenv("ZONE")
local page = tonumber(os.getenv("PAGE") or "10")
local tokens = {}
for line in io.lines(os.getenv("TOKENS")) do tokens[#tokens + 1] = line end
local template = '{"zones":[{"zoneID":{"zoneName":"' .. zone .. '"},"syncToken":"%s","resultsLimit":' .. page .. '}]}'

function setup(thread)
    thread:set("seed", math.random(1, 2147483647))
end

function init(args)
    math.randomseed(seed + os.time())
end

function request()
    local body = string.format(template, tokens[math.random(1, #tokens)])
    return wrk.format("POST", nil, {["Content-Type"] = "text/plain"}, body)
end
