-- (h) recipients: the milter asks for RCPT (no reply needed) and counts each
-- accepted one: a message to three recipients, then the same body to two,
-- make rcpts=5 on the second's X-Mailwave-Wave. The list is per message.
dofile(dir .. "/common.lua")
Main(function()
    local body = "Hello all,\r\n\r\nThe committee meets on Thursday in " ..
        "room 4 to go through the budget for the spring programme, the " ..
        "volunteer rota and the new membership fees. Please bring the " ..
        "printed minutes of the last meeting with you.\r\n\r\nRegards,\r\n" ..
        "The secretary\r\n"
    local conn = Open("RCPT1")
    local reply = Deliver(conn, "RCPT1", "secretary@club.example",
        {"a@example.net", "b@example.net", "c@example.net"},
        Headers("committee meeting"), body)
    if reply ~= SMFIR_CONTINUE and reply ~= SMFIR_ACCEPT then
        error("RCPT1: reply " .. tostring(reply))
    end
    if mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Wave") then
        error("the first copy got X-Mailwave-Wave")
    end
    reply = Deliver(conn, "RCPT2", "secretary@club.example",
        {"d@example.net", "e@example.net"}, Headers("committee meeting again"),
        body)
    if reply ~= SMFIR_CONTINUE and reply ~= SMFIR_ACCEPT then
        error("RCPT2: reply " .. tostring(reply))
    end
    local v = mt.getheader(conn, "X-Mailwave-Wave", 0)
    mt.echo("X-Mailwave-Wave: " .. tostring(v))
    if Field(v, "rcpts") ~= "5" or Field(v, "size") ~= "2" then
        error("3 + 2 recipients: want size=2; rcpts=5, got " .. tostring(v))
    end
    mt.disconnect(conn)
end)
