-- many.lua: `n` messages (-D n=N) on one milter connection, as an MTA sends a
-- busy SMTP session's mail; tcp_vs_unix.sh times it.
dofile(tests .. "/common.lua")
Main(function()
    local conn = Open("BENCH0")
    for i = 1, tonumber(n) do
        Send(conn, "BENCH" .. i, Headers("message " .. i), BODY .. i .. "\r\n")
    end
    mt.disconnect(conn)
end)
