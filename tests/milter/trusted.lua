-- (g) a trusted relay (run_milter_tests.sh sets trusted_relays =
-- "192.0.2.0/24"): a message from it that carries X-Mailwave headers keeps
-- them and gets nothing added; one without them is analysed as any other.
-- forged.lua shows the same headers deleted from an untrusted client.
dofile(dir .. "/common.lua")
Main(function()
    local conn = Open("TRUST1", "192.0.2.7")
    local h = Headers("relayed with a verdict")
    h[#h + 1] = {"X-Mailwave-Wave", "dup=exact; method=exact; cluster=0000abcd; size=3"}
    h[#h + 1] = {"X-Mailwave-Language", "en; score=90; bilingual=no"}
    Send(conn, "TRUST1", h, "A message an earlier mailwave already tagged.\r\n")
    if mt.eom_check(conn, MT_HDRDELETE, "X-Mailwave-Wave") then
        error("a trusted relay's X-Mailwave-Wave was deleted")
    end
    if mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Language") then
        error("a message a trusted relay tagged was tagged again")
    end
    Send(conn, "TRUST2", Headers("relayed without a verdict"), "Hello, this " ..
        "is a short note from the relay about the meeting on Thursday.\r\n")
    if not mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Language") then
        error("an untagged message from a trusted relay was not analysed")
    end
    mt.disconnect(conn)
end)
