-- POSTs the body in the file named by the BODY environment variable to the URL wrk was given,
-- as CONTENT_TYPE (text/plain, as CloudKit JS sends, unless set).
local file = assert(io.open(os.getenv("BODY"), "r"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = os.getenv("CONTENT_TYPE") or "text/plain"
