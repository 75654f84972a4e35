-- (b) the same body twice: the second gets X-Mailwave-Wave with size=2 (two
-- messages on one connection, so per-message state must be reset after eom).
dofile(dir .. "/common.lua")
Main(function()
    local conn = Open("WAVE1")
    Send(conn, "WAVE1", Headers("first copy"), BODY)
    if mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Wave") then
        error("the first copy got X-Mailwave-Wave")
    end
    Send(conn, "WAVE2", Headers("second copy"), BODY)
    local v = mt.getheader(conn, "X-Mailwave-Wave", 0)
    mt.echo("X-Mailwave-Wave: " .. tostring(v))
    if v == nil or not string.find(v, "size=2;") then
        error("the second copy's X-Mailwave-Wave lacks size=2: " .. tostring(v))
    end
    if not string.find(v, "^dup=exact; method=exact;") then
        error("unexpected X-Mailwave-Wave: " .. tostring(v))
    end
    mt.disconnect(conn)
end)
