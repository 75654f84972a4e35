-- A message that stays in flight for two seconds before its end of message
-- (run_lifecycle_tests.sh stops the daemon meanwhile): it must still get its
-- X-Mailwave-Language, and the daemon must exit only after it.
dofile(dir .. "/common.lua")
Main(function()
    local conn = Open("SLOW1")
    Send(conn, "SLOW1", Headers("a slow message"), "Hello, this is a short " ..
        "note to let you know that the meeting moved to Thursday afternoon.\r\n",
        2)
    if not mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Language") then
        error("the message in flight got no X-Mailwave-Language")
    end
    mt.disconnect(conn)
end)
