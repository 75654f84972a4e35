-- [wave] action at the milter edge (run_milter_tests.sh runs this against a
-- daemon with [wave] min_size = 2 and the action named by -D action=..., one
-- reload per action): the second copy of a body, a spread wave (one
-- unauthenticated sender: why=unauth), gets
--   reject      a reply code (550 5.7.1 with the pipeline's text), no header
--   tempfail    a reply code (451 4.7.1; the cluster is young), no header
--   quarantine  smfi_quarantine("mailwave: ...") and the headers
--   header      the headers alone
-- -D dir=tests/milter for common.lua; -D qid=PREFIX names the queue ids.
dofile(dir .. "/common.lua")
Main(function()
    local body = BODY .. "\r\nThis copy is for the " .. action .. " test.\r\n"
    local conn = Open(qid .. "1")
    local first = Deliver(conn, qid .. "1", "offers@shop.example",
        {"one@example.net"}, Headers(action .. " first"), body)
    if first ~= SMFIR_CONTINUE and first ~= SMFIR_ACCEPT then
        error("the first copy did not pass: reply " .. tostring(first))
    end
    local reply = Deliver(conn, qid .. "2", "offers@shop.example",
        {"two@example.net"}, Headers(action .. " second"), body)
    local added = mt.eom_check(conn, MT_HDRADD, "X-Mailwave-Wave")
    local v = mt.getheader(conn, "X-Mailwave-Wave", 0)
    mt.echo(action .. ": reply " .. tostring(reply) .. ", X-Mailwave-Wave: " ..
        tostring(v))
    if action == "reject" or action == "tempfail" then
        -- A refusal with a text (smfi_setreply): miltertest keeps the reply
        -- code, not the text, so the code itself (550 / 451) is checked by
        -- tests/e2e/run_policy through Postfix; run_milter_tests.sh checks
        -- the log line's action=.
        if reply ~= SMFIR_REPLYCODE then
            error(action .. ": want a reply code, got " .. tostring(reply))
        end
        if added then
            error(action .. ": a refused message got X-Mailwave-Wave")
        end
    else
        if reply ~= SMFIR_CONTINUE and reply ~= SMFIR_ACCEPT then
            error(action .. ": the message did not pass: " .. tostring(reply))
        end
        if Field(v, "kind") ~= "spread" or Field(v, "wave") ~= "yes" then
            error(action .. ": want kind=spread, wave=yes: " .. tostring(v))
        end
        local quarantined = mt.eom_check(conn, MT_QUARANTINE)
        if action == "quarantine" and not quarantined then
            error("quarantine: the message was not quarantined")
        end
        if action == "header" and quarantined then
            error("header: the message was quarantined")
        end
    end
    mt.disconnect(conn)
end)
