-- common.lua: helpers the milter scripts load with dofile(dir .. "/common.lua").
-- Adapted from the tested recipe in shared/recipes/postfix-milter/milter-test.lua.
-- Debian's miltertest 2.11.0~beta2 ends with status 1 and prints nothing on an
-- uncaught Lua error, so each script runs under Main(), which prints the error;
-- and a step the filter negotiated away raises an error, so it is skipped.

if sock == nil then
    error("run with -D sock=unix:/path")
end

function check(err, what)
    if err ~= nil then
        error(what .. " failed: " .. tostring(err))
    end
end

function expect(conn, reply, what)
    local got = mt.getreply(conn)
    if got ~= reply then
        error(what .. ": unexpected milter reply " .. tostring(got))
    end
end

function step(conn, noopt, what, fn)
    if mt.test_option(conn, noopt) then
        return
    end
    fn()
end

-- Opens a connection and negotiates; `qid` is the queue id macro; `ip` the
-- client's address (127.0.0.1 when not given).
function Open(qid, ip)
    local conn = mt.connect(sock, 50, 0.2)
    if conn == nil then
        error("mt.connect(" .. sock .. ") failed")
    end
    check(mt.negotiate(conn, nil, nil, nil), "negotiate")
    step(conn, SMFIP_NOCONNECT, "conninfo", function()
        check(mt.conninfo(conn, "client.example", ip or "127.0.0.1"), "conninfo")
        expect(conn, SMFIR_CONTINUE, "conninfo")
    end)
    return conn
end

-- One message: `headers` is a list of {name, value}; `body` a string or nil
-- (no body chunk). Returns after eom with the reply checked to be `reply`
-- (SMFIR_ACCEPT or SMFIR_CONTINUE both mean "pass"; nil: any pass).
-- `pause`, when given, is seconds to wait before the end of message (a
-- message in flight while the daemon is told to stop).
function Send(conn, qid, headers, body, pause)
    mt.macro(conn, SMFIC_MAIL, "i", qid)
    step(conn, SMFIP_NOMAIL, "mailfrom", function()
        check(mt.mailfrom(conn, "<sender@example.org>"), "mailfrom")
        expect(conn, SMFIR_CONTINUE, "mailfrom")
    end)
    step(conn, SMFIP_NORCPT, "rcptto", function()
        check(mt.rcptto(conn, "<rcpt@example.net>"), "rcptto")
        expect(conn, SMFIR_CONTINUE, "rcptto")
    end)
    for _, h in ipairs(headers) do
        step(conn, SMFIP_NOHDRS, "header", function()
            check(mt.header(conn, h[1], h[2]), "header " .. h[1])
            expect(conn, SMFIR_CONTINUE, "header " .. h[1])
        end)
    end
    step(conn, SMFIP_NOEOH, "eoh", function()
        check(mt.eoh(conn), "eoh")
        expect(conn, SMFIR_CONTINUE, "eoh")
    end)
    if body ~= nil then
        step(conn, SMFIP_NOBODY, "body", function()
            check(mt.bodystring(conn, body), "body")
            expect(conn, SMFIR_CONTINUE, "body")
        end)
    end
    if pause ~= nil then
        mt.sleep(pause)
    end
    check(mt.eom(conn), "eom")
    local got = mt.getreply(conn)
    if got ~= SMFIR_CONTINUE and got ~= SMFIR_ACCEPT then
        error("eom: the message did not pass: reply " .. tostring(got))
    end
end

-- One message from `sender` to each address of `rcpts` (a list); returns the
-- end of message's reply without judging it (SMFIR_REPLYCODE for a
-- refusal with a text, SMFIR_CONTINUE for a pass).
function Deliver(conn, qid, sender, rcpts, headers, body)
    mt.macro(conn, SMFIC_MAIL, "i", qid)
    step(conn, SMFIP_NOMAIL, "mailfrom", function()
        check(mt.mailfrom(conn, "<" .. sender .. ">"), "mailfrom")
        expect(conn, SMFIR_CONTINUE, "mailfrom")
    end)
    for _, r in ipairs(rcpts) do
        step(conn, SMFIP_NORCPT, "rcptto", function()
            check(mt.rcptto(conn, "<" .. r .. ">"), "rcptto " .. r)
            expect(conn, SMFIR_CONTINUE, "rcptto " .. r)
        end)
    end
    for _, h in ipairs(headers) do
        step(conn, SMFIP_NOHDRS, "header", function()
            check(mt.header(conn, h[1], h[2]), "header " .. h[1])
            expect(conn, SMFIR_CONTINUE, "header " .. h[1])
        end)
    end
    step(conn, SMFIP_NOEOH, "eoh", function()
        check(mt.eoh(conn), "eoh")
        expect(conn, SMFIR_CONTINUE, "eoh")
    end)
    step(conn, SMFIP_NOBODY, "body", function()
        check(mt.bodystring(conn, body), "body")
        expect(conn, SMFIR_CONTINUE, "body")
    end)
    check(mt.eom(conn), "eom")
    return mt.getreply(conn)
end

-- The value of `field` ("rcpts") in an X-Mailwave-Wave value; nil if absent.
function Field(wave, field)
    if wave == nil then
        return nil
    end
    return string.match(wave, "; " .. field .. "=([^;]*)")
end

function Headers(subject)
    return {
        {"From", "Sender <sender@example.org>"},
        {"To", "rcpt@example.net"},
        {"Subject", subject},
        {"Message-ID", "<" .. subject:gsub("%W", "") .. "@example.org>"},
    }
end

BODY = "Dear customer,\r\n\r\n" ..
    "We are pleased to inform you that your account has been selected for a " ..
    "special offer this week. Visit our web site to claim the discount before " ..
    "the end of the month, and tell your friends about the savings they can " ..
    "make on every order placed through our partner shops.\r\n\r\n" ..
    "The offer is valid for new and existing customers, and it can be combined " ..
    "with the loyalty programme that many of you have joined over the years.\r\n\r\n" ..
    "Kind regards,\r\nThe sales team\r\n"

function Main(fn)
    local ok, err = pcall(fn)
    if not ok then
        mt.echo("miltertest: FAIL: " .. tostring(err))
        os.exit(1)
    end
    mt.echo("miltertest: PASS")
end
