#include "conversation.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <strings.h>
#include <syslog.h>

#include <cstring>

#include "in_flight.h"
#include "log.h"

namespace mw::milter {

namespace {

// What we ask for at OPTNEG (see the file comment of conversation.h).
constexpr std::uint32_t kRequiredActions = smfif::kAddHdrs | smfif::kChgHdrs;

Wants OurWants() {
  Wants w;
  w.actions = kRequiredActions | smfif::kQuarantine;
  w.skip = smfip::kNoHelo | smfip::kNoUnknown | smfip::kNoData;
  w.no_reply = smfip::kNrConn | smfip::kNrMail | smfip::kNrRcpt |
               smfip::kNrHdr | smfip::kNrEoh | smfip::kNrBody;
  return w;
}

// "<a@b>" -> "a@b"; anything else as given.
std::string Unbracket(std::string_view a) {
  if (a.size() >= 2 && a.front() == '<' && a.back() == '>')
    a = a.substr(1, a.size() - 2);
  return std::string(a);
}

// The client's address as libmilter gave it to xxfi_connect: an IPv4 or
// IPv6 sockaddr; none for a unix socket, an unknown family or an address
// that does not parse (the message is still analysed, without it).
void SetClient(Session& s, const Connect& c) {
  std::string address(c.address);
  if (c.family == Family::kInet) {
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(c.port);
    if (inet_pton(AF_INET, address.c_str(), &sin.sin_addr) == 1)
      s.set_client(reinterpret_cast<const sockaddr*>(&sin), sizeof sin);
  } else if (c.family == Family::kInet6) {
    // Postfix may send the address with its SMTP "IPv6:" prefix.
    if (address.size() > 5 && strncasecmp(address.c_str(), "IPv6:", 5) == 0)
      address.erase(0, 5);
    sockaddr_in6 sin6{};
    sin6.sin6_family = AF_INET6;
    sin6.sin6_port = htons(c.port);
    if (inet_pton(AF_INET6, address.c_str(), &sin6.sin6_addr) == 1)
      s.set_client(reinterpret_cast<const sockaddr*>(&sin6), sizeof sin6);
  }
}

// The stages whose macros belong to one message (cleared when it ends).
bool MessageStage(char stage) {
  switch (stage) {
    case smfic::kMail:
    case smfic::kRcpt:
    case smfic::kData:
    case smfic::kHeader:
    case smfic::kEoh:
    case smfic::kBody:
    case smfic::kEob:
      return true;
    default:
      return false;
  }
}

std::unique_ptr<Session> FreshSession(std::uint64_t max_bytes,
                                      const Session* like) {
  auto s = std::make_unique<Session>(max_bytes);
  if (like != nullptr) {
    if (const sockaddr* c = like->client(); c != nullptr) {
      s->set_client(c, c->sa_family == AF_INET6 ? sizeof(sockaddr_in6)
                                                : sizeof(sockaddr_in));
    }
    s->set_no_reply(like->no_reply());
  }
  return s;
}

}  // namespace

std::string TakenMessage::tag() const {
  if (!session_ || session_->queue_id().empty()) return "NOQUEUE";
  return session_->queue_id();
}

void TakenMessage::Release() noexcept {
  if (session_ && session_->in_flight()) {
    session_->set_in_flight(false);
    RemoveMessageInFlight();
  }
  session_.reset();
}

Conversation::Conversation(std::uint64_t max_bytes)
    : max_bytes_(max_bytes), session_(FreshSession(max_bytes, nullptr)) {}

Conversation::~Conversation() { EndMessage(); }

void Conversation::BeginMessage() {
  if (session_->in_flight()) return;
  session_->set_in_flight(true);
  AddMessageInFlight();
}

void Conversation::EndMessage() noexcept {
  if (!session_->in_flight()) return;
  session_->set_in_flight(false);
  RemoveMessageInFlight();
}

void Conversation::ClearMessageMacros() {
  std::erase_if(macros_, [](const auto& m) { return MessageStage(m.first); });
}

std::string Conversation::Macro(std::string_view name) const {
  std::string braced = "{" + std::string(name) + "}";
  for (auto it = macros_.rbegin(); it != macros_.rend(); ++it) {
    for (const auto& [n, v] : it->second) {
      if (n == name || n == braced) return v;
    }
  }
  return {};
}

void Conversation::Reply(std::uint32_t bit, std::string& out) const {
  if ((no_reply_ & bit) == 0) AppendContinue(out);
}

Conversation::Next Conversation::Feed(const Command& command,
                                      std::string& out) {
  // Each alternative answers as libmilter answered for callbacks.cc: a step
  // we have no callback for (HELO, DATA, UNKNOWN) continues.
  struct Visitor {
    Conversation& c;
    std::string& out;

    Next operator()(const OptNeg& mta) {
      auto n = Negotiate(mta, OurWants());
      if (!n) {
        Log(LOG_ERR, "milter: " + n.error().message() + "; closing");
        return Next::kClose;
      }
      if ((n->missing_actions & kRequiredActions) != 0) {
        Log(LOG_ERR,
            "milter: the MTA does not allow adding and changing headers; "
            "closing");
        return Next::kClose;
      }
      c.actions_ = n->reply.actions;
      c.no_reply_ = n->reply.protocol & smfip::kNoReplyMask;
      c.session_->set_no_reply(c.no_reply_);
      c.negotiated_ = true;
      AppendOptNeg(out, n->reply);
      return Next::kGoOn;
    }
    Next operator()(const Connect& conn) {
      // A CONNECT inside a message: the old one is forgotten.
      c.EndMessage();
      auto fresh = FreshSession(c.max_bytes_, nullptr);
      fresh->set_no_reply(c.no_reply_);
      c.session_ = std::move(fresh);
      SetClient(*c.session_, conn);
      c.Reply(smfip::kNrConn, out);
      return Next::kGoOn;
    }
    Next operator()(const Helo&) {
      AppendContinue(out);
      return Next::kGoOn;
    }
    Next operator()(const Mail& mail) {
      // A MAIL inside a message starts a new one (as an ABORT would).
      c.session_->Reset();
      c.EndMessage();
      c.BeginMessage();
      c.session_->set_queue_id(c.Macro("i"));
      c.session_->set_sender(Unbracket(mail.address));
      c.Reply(smfip::kNrMail, out);
      return Next::kGoOn;
    }
    Next operator()(const Rcpt& rcpt) {
      c.BeginMessage();
      std::string address = Unbracket(rcpt.address);
      if (!address.empty()) c.session_->AddRecipient(std::move(address));
      c.Reply(smfip::kNrRcpt, out);
      return Next::kGoOn;
    }
    Next operator()(const Data&) {
      c.BeginMessage();
      AppendContinue(out);
      return Next::kGoOn;
    }
    Next operator()(const Header& h) {
      // After EOH the session keeps it as body text: the message goes on.
      c.BeginMessage();
      c.session_->AddHeader(h.name, h.value);
      c.Reply(smfip::kNrHdr, out);
      return Next::kGoOn;
    }
    Next operator()(const EndOfHeaders&) {
      c.BeginMessage();
      c.session_->EndHeaders();
      c.Reply(smfip::kNrEoh, out);
      return Next::kGoOn;
    }
    Next operator()(const Body& b) {
      c.BeginMessage();
      c.session_->AddBody(b.chunk);
      c.Reply(smfip::kNrBody, out);
      return Next::kGoOn;
    }
    Next operator()(const EndOfBody& e) {
      c.BeginMessage();
      if (!e.chunk.empty()) c.session_->AddBody(e.chunk);
      if (c.session_->queue_id().empty())
        c.session_->set_queue_id(c.Macro("i"));
      return Next::kMessage;
    }
    Next operator()(const Macros& m) {
      // A stage's macros replace what that stage sent before.
      std::erase_if(c.macros_,
                    [&](const auto& s) { return s.first == m.stage; });
      std::vector<std::pair<std::string, std::string>> list;
      list.reserve(m.macros.size());
      for (const auto& macro : m.macros)
        list.emplace_back(std::string(macro.name), std::string(macro.value));
      c.macros_.emplace_back(m.stage, std::move(list));
      return Next::kGoOn;
    }
    Next operator()(const Abort&) {
      c.session_->Reset();
      c.EndMessage();
      c.ClearMessageMacros();
      return Next::kGoOn;
    }
    Next operator()(const Quit&) { return Next::kClose; }
    Next operator()(const QuitNewConnection&) {
      // The SMTP session ends; the socket stays for the MTA's next one,
      // which starts with CONNECT under the options already negotiated
      // (libmilter's engine.c: after ST_Q_NC comes ST_CONN, not OPTNEG).
      // An OPTNEG that comes anyway renegotiates.
      c.EndMessage();
      c.session_ = FreshSession(c.max_bytes_, nullptr);
      c.session_->set_no_reply(c.no_reply_);
      c.macros_.clear();
      return Next::kGoOn;
    }
    Next operator()(const Unknown&) {
      AppendContinue(out);
      return Next::kGoOn;
    }
  };
  return std::visit(Visitor{*this, out}, command);
}

TakenMessage Conversation::TakeMessage() {
  auto next = FreshSession(max_bytes_, session_.get());
  TakenMessage taken(std::move(session_));
  session_ = std::move(next);
  ClearMessageMacros();
  return taken;
}

std::vector<std::string> Conversation::AppendEndOfMessage(
    const EndOfMessage& e, std::string_view tag, std::string& out) const {
  std::vector<std::string> refused;
  const std::string t(tag);
  bool deleted = true;
  for (const auto& d : e.deletions) {
    if (!AppendChangeHeader(out, static_cast<std::uint32_t>(d.index), d.name,
                            ""))
      deleted = false;
  }
  if (!deleted)
    Log(LOG_WARNING, t + ": could not delete an incoming X-Mailwave header");
  for (const auto& [name, value] : e.headers) {
    if (!AppendAddHeader(out, name, value))
      Log(LOG_WARNING, t + ": could not add " + name);
  }
  if (!e.quarantine.empty()) {
    if ((actions_ & smfif::kQuarantine) == 0 ||
        !AppendQuarantine(out, e.quarantine))
      refused.emplace_back(
          "the MTA did not take the quarantine; delivered tagged");
  }
  using V = EndOfMessage::Verdict;
  if (e.verdict != V::kContinue && !e.rcode.empty()) {
    if (AppendReplyCode(out, e.rcode, e.xcode, e.text)) return refused;
    refused.emplace_back(
        e.verdict == V::kReject
            ? "the MTA did not take the reply text; rejected with its own"
            : "the MTA did not take the reply text; tempfailed with its own");
  }
  switch (e.verdict) {
    case V::kReject:
      AppendReject(out);
      break;
    case V::kTempfail:
      AppendTempFail(out);
      break;
    case V::kContinue:
      AppendContinue(out);
      break;
  }
  return refused;
}

}  // namespace mw::milter
