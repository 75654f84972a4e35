// The libmilter edge: collect the message and its envelope (sender,
// recipients, client address) in the Session; at end of message, Finish
// (finish.h) decides and this file applies its answer with smfi_* calls.
//
// Every callback is noexcept and catches everything (STYLE.md section 4): a
// failure logs one line with the queue id and returns the configured
// [milter] on_error action (accept by default), never a crash of the
// conversation.
#include "callbacks.h"

#include <netinet/in.h>
#include <syslog.h>

#include <string>
#include <string_view>

#include "finish.h"
#include "in_flight.h"
#include "log.h"
#include "metrics_hooks.h"
#include "session.h"

namespace mw::milter {

namespace {

void BeginMessage(Session& s) {
  if (s.in_flight()) return;
  s.set_in_flight(true);
  AddMessageInFlight();
}

void EndMessage(Session& s) noexcept {
  if (!s.in_flight()) return;
  s.set_in_flight(false);
  RemoveMessageInFlight();
}

// The sfsistat of an answer without its edits.
sfsistat StatusOf(const EndOfMessage& e) {
  switch (e.verdict) {
    case EndOfMessage::Verdict::kReject:
      return SMFIS_REJECT;
    case EndOfMessage::Verdict::kTempfail:
      return SMFIS_TEMPFAIL;
    case EndOfMessage::Verdict::kContinue:
      break;
  }
  return SMFIS_CONTINUE;
}

sfsistat OnError(std::string_view queue_id, std::string_view what) noexcept {
  return StatusOf(OnFailure(queue_id, what));
}

// The one cast from libmilter's private pointer. With `create`, makes the
// Session when the connection has none yet.
Session* SessionOf(SMFICTX* ctx, bool create) {
  auto* session = static_cast<Session*>(smfi_getpriv(ctx));
  if (session == nullptr && create) {
    auto snap = CurrentSnapshot();
    session = new Session(snap ? snap->max_bytes : 32ull << 20);
    if (smfi_setpriv(ctx, session) != MI_SUCCESS) {
      delete session;
      return nullptr;
    }
  }
  return session;
}

std::string QueueId(SMFICTX* ctx) {
  const char* id = smfi_getsymval(ctx, const_cast<char*>("i"));
  return id == nullptr ? std::string() : std::string(id);
}

std::string QueueIdOf(SMFICTX* ctx) noexcept {
  try {
    Session* s = SessionOf(ctx, false);
    if (s != nullptr && !s->queue_id().empty()) return s->queue_id();
    return QueueId(ctx);
  } catch (...) {
    return {};
  }
}

// "<a@b>" -> "a@b"; anything else as given.
std::string Unbracket(const char* arg) {
  std::string a = arg != nullptr ? arg : "";
  if (a.size() >= 2 && a.front() == '<' && a.back() == '>')
    a = a.substr(1, a.size() - 2);
  return a;
}

// The reply of a step that went well: none when the MTA was told it need not
// wait for one (`bit`, negotiated per connection), else "continue".
sfsistat Done(const Session* s, unsigned long bit) {
  return s != nullptr && (s->no_reply() & bit) != 0 ? SMFIS_NOREPLY
                                                    : SMFIS_CONTINUE;
}

// A failed step: a step that must answer answers with the configured
// action; a no-reply step cannot, so the failure waits for the end of
// message (Session::failure).
sfsistat Failed(SMFICTX* ctx, Session* s, unsigned long bit,
                std::string_view what) noexcept {
  if (s != nullptr && (s->no_reply() & bit) != 0) {
    try {
      s->set_failure(std::string(what));
    } catch (...) {
    }
    return SMFIS_NOREPLY;
  }
  return OnError(QueueIdOf(ctx), what);
}

// The shape of every step before the end of message: the connection's
// Session, `fn` on it, then Done; a missing session or an exception gives
// `no_session` / `failed` through OnError or Failed.
template <typename Fn>
sfsistat RunStep(SMFICTX* ctx, unsigned long bit, std::string_view no_session,
                 std::string_view failed, Fn&& fn) noexcept {
  Session* s = nullptr;
  try {
    s = SessionOf(ctx, true);
    if (s == nullptr) return OnError(QueueIdOf(ctx), no_session);
    fn(*s);
    return Done(s, bit);
  } catch (...) {
    return Failed(ctx, s, bit, failed);
  }
}

// Only to learn the client's address (trusted relays, and the client network
// the pipeline counts); never answered when the MTA allows it.
sfsistat Connect(SMFICTX* ctx, char*, _SOCK_ADDR* addr) noexcept {
  return RunStep(ctx, SMFIP_NR_CONN, "connect: no session", "connect: failed",
                 [addr](Session& s) {
                   if (addr == nullptr) return;
                   const socklen_t len =
                       addr->sa_family == AF_INET6  ? sizeof(sockaddr_in6)
                       : addr->sa_family == AF_INET ? sizeof(sockaddr_in)
                                                    : 0;
                   s.set_client(addr, len);
                 });
}

sfsistat EnvFrom(SMFICTX* ctx, char** argv) noexcept {
  return RunStep(ctx, SMFIP_NR_MAIL, "mail: no session", "mail: failed",
                 [ctx, argv](Session& s) {
                   s.Reset();
                   BeginMessage(s);
                   s.set_queue_id(QueueId(ctx));
                   s.set_sender(Unbracket(argv != nullptr ? argv[0] : nullptr));
                 });
}

// Each accepted recipient, for the cluster's `rcpts` count: one message to
// 40 recipients is 40 copies of a wave. Never answered when the MTA allows
// it (SMFIP_NR_RCPT): a milter that only listens must not cost a round trip
// per recipient.
sfsistat EnvRcpt(SMFICTX* ctx, char** argv) noexcept {
  return RunStep(ctx, SMFIP_NR_RCPT, "rcpt: no session", "rcpt: failed",
                 [argv](Session& s) {
                   std::string rcpt =
                       Unbracket(argv != nullptr ? argv[0] : nullptr);
                   if (!rcpt.empty()) s.AddRecipient(std::move(rcpt));
                 });
}

sfsistat Header(SMFICTX* ctx, char* name, char* value) noexcept {
  return RunStep(ctx, SMFIP_NR_HDR, "header: no session", "header: failed",
                 [name, value](Session& s) {
                   s.AddHeader(name == nullptr ? "" : name,
                               value == nullptr ? "" : value);
                 });
}

sfsistat Eoh(SMFICTX* ctx) noexcept {
  return RunStep(ctx, SMFIP_NR_EOH, "eoh: no session", "eoh: failed",
                 [](Session& s) { s.EndHeaders(); });
}

sfsistat Body(SMFICTX* ctx, unsigned char* chunk, size_t size) noexcept {
  return RunStep(ctx, SMFIP_NR_BODY, "body: no session", "body: failed",
                 [chunk, size](Session& s) {
                   if (chunk != nullptr)
                     s.AddBody(std::string_view(
                         reinterpret_cast<const char*>(chunk), size));
                 });
}

// Applies Finish's answer: deletions, additions, quarantine, the reply. A
// request the MTA does not take is logged and counted (Refused); the
// message then passes, or is refused with the MTA's own text.
sfsistat Apply(SMFICTX* ctx, const EndOfMessage& e, const std::string& tag) {
  bool deleted = true;
  for (const auto& d : e.deletions) {
    std::string name = d.name;
    if (smfi_chgheader(ctx, name.data(), d.index, nullptr) != MI_SUCCESS)
      deleted = false;
  }
  if (!deleted)
    Log(LOG_WARNING, tag + ": could not delete an incoming X-Mailwave header");
  for (const auto& [n, v] : e.headers) {
    std::string name = n;
    std::string value = v;
    if (smfi_addheader(ctx, name.data(), value.data()) != MI_SUCCESS)
      Log(LOG_WARNING, tag + ": could not add " + name);
  }
  if (!e.quarantine.empty()) {
    std::string reason = e.quarantine;
    if (smfi_quarantine(ctx, reason.data()) != MI_SUCCESS)
      Refused(tag, "the MTA did not take the quarantine; delivered tagged");
  }
  if (e.verdict != EndOfMessage::Verdict::kContinue && !e.rcode.empty()) {
    std::string rcode = e.rcode;
    std::string xcode = e.xcode;
    std::string text = e.text;
    if (smfi_setreply(ctx, rcode.data(), xcode.data(), text.data()) !=
        MI_SUCCESS)
      Refused(tag, e.verdict == EndOfMessage::Verdict::kReject
                       ? "the MTA did not take the reply text; rejected with "
                         "its own"
                       : "the MTA did not take the reply text; tempfailed "
                         "with its own");
  }
  return StatusOf(e);
}

sfsistat Eom(SMFICTX* ctx) noexcept {
  Session* s = nullptr;
  sfsistat result = SMFIS_CONTINUE;
  try {
    Metrics().CountMessage();
    s = SessionOf(ctx, true);
    if (s == nullptr) return OnError(QueueId(ctx), "eom: no session");
    if (s->queue_id().empty()) s->set_queue_id(QueueId(ctx));
    const std::string tag =
        s->queue_id().empty() ? std::string("NOQUEUE") : s->queue_id();
    auto snap = CurrentSnapshot();
    result = Apply(ctx, Finish(snap.get(), *s), tag);
  } catch (...) {
    result = OnError(QueueIdOf(ctx), "eom: failed");
  }
  if (s != nullptr) {
    s->Reset();
    EndMessage(*s);
  }
  return result;
}

sfsistat Abort(SMFICTX* ctx) noexcept {
  try {
    Session* s = SessionOf(ctx, false);
    if (s != nullptr) {
      s->Reset();
      EndMessage(*s);
    }
    return SMFIS_CONTINUE;
  } catch (...) {
    return OnError(QueueIdOf(ctx), "abort: failed");
  }
}

sfsistat Close(SMFICTX* ctx) noexcept {
  try {
    // May come with no connect before it, and no session.
    Session* s = SessionOf(ctx, false);
    if (s != nullptr) EndMessage(*s);
    delete s;
    smfi_setpriv(ctx, nullptr);
    return SMFIS_CONTINUE;
  } catch (...) {
    return OnError("", "close: failed");
  }
}

// Asks for the actions used (adding and changing headers, and quarantine
// when the MTA offers it: Sendmail and Postfix do), drops the steps not
// needed, and lets the MTA send MAIL, each RCPT, the headers, the end of
// headers and the body without waiting for a reply to each (a round trip
// per header otherwise): those steps can only ever continue. libmilter
// offers the no-reply bits whether the MTA has them or not, and answers for
// us where it has not.
sfsistat Negotiate(SMFICTX* ctx, unsigned long f0, unsigned long f1,
                   unsigned long, unsigned long, unsigned long* pf0,
                   unsigned long* pf1, unsigned long* pf2,
                   unsigned long* pf3) noexcept {
  const unsigned long actions = SMFIF_ADDHDRS | SMFIF_CHGHDRS;
  if ((f0 & actions) != actions) return SMFIS_REJECT;
  *pf0 = actions | (f0 & SMFIF_QUARANTINE);
  *pf1 = f1 & (SMFIP_NOHELO | SMFIP_NOUNKNOWN | SMFIP_NODATA);
  *pf2 = 0;
  *pf3 = 0;
  try {
    if (Session* s = SessionOf(ctx, true); s != nullptr) {
      const unsigned long quiet =
          f1 & (SMFIP_NR_CONN | SMFIP_NR_MAIL | SMFIP_NR_RCPT | SMFIP_NR_HDR |
                SMFIP_NR_EOH | SMFIP_NR_BODY);
      s->set_no_reply(quiet);
      *pf1 |= quiet;
    }
  } catch (...) {
    // No session: every step answers (and fails) as before.
  }
  return SMFIS_CONTINUE;
}

}  // namespace

smfiDesc Description(char* name) {
  smfiDesc d{};
  d.xxfi_name = name;
  d.xxfi_version = SMFI_VERSION;
  d.xxfi_flags = SMFIF_ADDHDRS | SMFIF_CHGHDRS | SMFIF_QUARANTINE;
  d.xxfi_connect = &Connect;
  d.xxfi_envfrom = &EnvFrom;
  d.xxfi_envrcpt = &EnvRcpt;
  d.xxfi_header = &Header;
  d.xxfi_eoh = &Eoh;
  d.xxfi_body = &Body;
  d.xxfi_eom = &Eom;
  d.xxfi_abort = &Abort;
  d.xxfi_close = &Close;
  d.xxfi_negotiate = &Negotiate;
  return d;
}

}  // namespace mw::milter
