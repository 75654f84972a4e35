-- (d) an empty body (a lone CRLF: libmilter drops a connection that sends a
-- zero-length body chunk, which Postfix never does), a message with neither headers nor body, and a message
-- aborted half way all get a reply that lets the mail pass (never tempfail
-- under the default on_error = "accept").
dofile(dir .. "/common.lua")
Main(function()
    local conn = Open("EMPTY1")
    Send(conn, "EMPTY1", Headers("no body"), nil)
    Send(conn, "EMPTY2", {}, nil)
    Send(conn, "EMPTY3", Headers("empty body"), "\r\n")
    -- a transaction the MTA aborts, then one more message on the connection
    mt.macro(conn, SMFIC_MAIL, "i", "ABORT1")
    check(mt.mailfrom(conn, "<sender@example.org>"), "mailfrom")
    expect(conn, SMFIR_CONTINUE, "mailfrom")
    check(mt.header(conn, "Subject", "aborted"), "header")
    expect(conn, SMFIR_CONTINUE, "header")
    check(mt.abort(conn), "abort")
    Send(conn, "EMPTY4", Headers("after abort"), "short text\r\n")
    if not mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Language") then
        error("the message after an abort got no X-Mailwave-Language")
    end
    mt.disconnect(conn)
end)
