-- (d) a message past [mime] max_bytes (4 KiB in the driver's config) is cut,
-- analysed as far as it was read and passes with its language header.
dofile(dir .. "/common.lua")
Main(function()
    local conn = Open("LARGE1")
    local line = "Another line of a long letter about the garden and the " ..
        "weather, written to go past the size limit of the filter.\r\n"
    Send(conn, "LARGE1", Headers("a long letter"), string.rep(line, 200))
    if not mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Language") then
        error("X-Mailwave-Language was not added to a message past the limit")
    end
    mt.disconnect(conn)
end)
