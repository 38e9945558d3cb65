-- POSTs records/modify requests that create COUNT records (default 200) with names the client
-- chose, random version 4 UUIDs as most CloudKit clients make them; FIELDS holds the records'
-- fields as JSON members.
local count = tonumber(os.getenv("COUNT") or "200")
local fields = os.getenv("FIELDS")
local template = '{"operationType":"create","record":{"recordName":"%s","recordType":"Note","fields":{' .. fields .. '}}}'

function setup(thread)
    thread:set("seed", math.random(1, 2147483647))
end

function init(args)
    math.randomseed(seed + os.time())
end

local function uuid()
    return (string.gsub("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", "[xy]", function(c)
        local v = (c == "x") and math.random(0, 15) or math.random(8, 11)
        return string.format("%x", v)
    end))
end

function request()
    local operations = {}
    for i = 1, count do operations[i] = string.format(template, uuid()) end
    local body = '{"operations":[' .. table.concat(operations, ",") .. '],"desiredKeys":[]}'
    return wrk.format("POST", nil, {["Content-Type"] = "text/plain"}, body)
end
