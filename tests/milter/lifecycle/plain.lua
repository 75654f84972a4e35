-- One message after a reload: the daemon still answers and tags it.
dofile(dir .. "/common.lua")
Main(function()
    local conn = Open(qid)
    Send(conn, qid, Headers("after a reload " .. qid), "Hello, this is a " ..
        "short note about the figures for the last quarter.\r\n")
    if not mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Language") then
        error("X-Mailwave-Language was not added")
    end
    mt.disconnect(conn)
end)
