-- (a) a message gets X-Mailwave-Language.
dofile(dir .. "/common.lua")
Main(function()
    local conn = Open("LANG1")
    -- not BODY, which wave.lua needs unseen
    Send(conn, "LANG1", Headers("a plain message"), "Hello, this is a short " ..
        "note to let you know that the meeting moved to Thursday afternoon. " ..
        "Please bring the report and the figures for the last quarter.\r\n")
    if not mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Language") then
        error("X-Mailwave-Language was not added")
    end
    local v = mt.getheader(conn, "X-Mailwave-Language", 0)
    mt.echo("X-Mailwave-Language: " .. tostring(v))
    if v == nil or not string.find(v, "^en; score=") then
        error("unexpected X-Mailwave-Language: " .. tostring(v))
    end
    if mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Wave") then
        error("a first message got X-Mailwave-Wave")
    end
    mt.disconnect(conn)
end)
