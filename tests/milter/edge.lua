-- (f) protocol edge cases: a message with 2,000 headers, one with a thousand
-- forged X-Mailwave-Wave headers (all deleted, ours added), and a connection
-- dropped in the middle of a body, after which the daemon still answers
-- (run_milter_tests.sh then checks that no message stays counted in flight).
dofile(dir .. "/common.lua")
Main(function()
    local conn = Open("EDGE1")
    local many = Headers("many headers")
    for i = 1, 2000 do
        many[#many + 1] = {"X-Filler-" .. i, "value number " .. i}
    end
    Send(conn, "EDGE1", many, "A message with very many headers, and a " ..
        "short body in plain English to read.\r\n")
    if not mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Language") then
        error("the message with 2000 headers got no X-Mailwave-Language")
    end

    local forged = Headers("a thousand forged verdicts")
    for i = 1, 1000 do
        forged[#forged + 1] = {"X-Mailwave-Wave", "dup=exact; forged " .. i}
    end
    Send(conn, "EDGE2", forged, "Forged verdicts must all go away before " ..
        "the real ones are added to the message.\r\n")
    if not mt.eom_check(conn, MT_HDRDELETE, "X-Mailwave-Wave") then
        error("the forged X-Mailwave-Wave headers were not deleted")
    end
    if not mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Language") then
        error("the message with forged headers got no X-Mailwave-Language")
    end
    mt.disconnect(conn)

    -- dropped half way through the body: no end of message, no abort
    local cut = Open("EDGE3")
    mt.macro(cut, SMFIC_MAIL, "i", "EDGE3")
    check(mt.mailfrom(cut, "<sender@example.org>"), "mailfrom")
    for _, h in ipairs(Headers("cut off")) do
        check(mt.header(cut, h[1], h[2]), "header")
    end
    check(mt.eoh(cut), "eoh")
    check(mt.bodystring(cut, "The first half of a body whose second "), "body")
    mt.disconnect(cut, false)

    local after = Open("EDGE4")
    Send(after, "EDGE4", Headers("after a dropped connection"), "The daemon " ..
        "answers the next connection as if nothing happened.\r\n")
    if not mt.eom_check(after, MT_HDRADD, "X-Mailwave-Language") then
        error("the message after a dropped connection got no X-Mailwave-Language")
    end
    mt.disconnect(after)
end)
