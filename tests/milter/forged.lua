-- (c) two forged X-Mailwave-Wave headers (and a forged language header in
-- other case) are deleted and the real headers added.
dofile(dir .. "/common.lua")
Main(function()
    local conn = Open("FORGED1")
    local h = Headers("forged verdicts")
    table.insert(h, {"X-Mailwave-Wave", "dup=exact; forged=1"})
    table.insert(h, {"X-MAILWAVE-language", "xx; forged"})
    table.insert(h, {"X-Mailwave-Wave", "dup=exact; forged=2"})
    Send(conn, "FORGED1", h, "A different text, never seen before, about " ..
        "the garden, the weather and the neighbours' new dog.\r\n")
    if not mt.eom_check(conn, MT_HDRDELETE, "X-Mailwave-Wave") then
        error("forged X-Mailwave-Wave was not deleted")
    end
    if not mt.eom_check(conn, MT_HDRDELETE, "X-MAILWAVE-language") then
        error("forged X-MAILWAVE-language was not deleted")
    end
    if not mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Language") then
        error("X-Mailwave-Language was not added")
    end
    mt.disconnect(conn)
end)
