// The libmilter edge: collect the message in the Session, run pipeline::Check
// at end of message, and turn its headers into header edits.
//
// Every callback is noexcept and catches everything (STYLE.md section 4): a
// failure logs one line with the queue id and returns the configured
// [milter] on_error action (accept by default), never a crash of the
// conversation.
#include "callbacks.h"

#include <netinet/in.h>
#include <syslog.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "log.h"
#include "metrics_hooks.h"
#include "pipeline/check.h"
#include "session.h"
#include "store/store.h"

namespace mw::milter {

namespace {

std::shared_ptr<const Snapshot> g_snapshot;

// Messages in flight (MessagesInFlight), for the drain at shutdown.
std::mutex g_flight_mutex;
std::condition_variable g_flight_done;
std::size_t g_in_flight = 0;

void BeginMessage(Session& s) {
  if (s.in_flight()) return;
  s.set_in_flight(true);
  std::lock_guard lock(g_flight_mutex);
  ++g_in_flight;
}

void EndMessage(Session& s) noexcept {
  if (!s.in_flight()) return;
  s.set_in_flight(false);
  std::lock_guard lock(g_flight_mutex);
  if (--g_in_flight == 0) g_flight_done.notify_all();
}

sfsistat OnError(std::string_view queue_id, std::string_view what) noexcept {
  sfsistat action = SMFIS_CONTINUE;
  try {
    Metrics().CountFailure(Failure::kCallback);
    auto snap = CurrentSnapshot();
    if (snap) action = snap->on_error;
    std::string line(queue_id.empty() ? "NOQUEUE" : queue_id);
    line += ": ";
    line += what;
    line += action == SMFIS_TEMPFAIL ? "; tempfail" : "; accepted untagged";
    Log(LOG_ERR, line);
  } catch (...) {
  }
  return action;
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

long long Micros(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

std::string LogLine(const Session& s, const pipeline::Outcome& o) {
  std::string line = s.queue_id().empty() ? "NOQUEUE" : s.queue_id();
  line += ": language=" + (o.analysis.language.code.empty()
                               ? std::string("und")
                               : o.analysis.language.code);
  if (o.wave) {
    line += " verdict=cluster:" + store::ClusterIdString(o.wave->cluster) +
            " members=" + std::to_string(o.wave->size) +
            (o.wave->wave ? " wave=yes" : " wave=no");
  } else {
    line += " verdict=none";
  }
  line += " bytes=" + std::to_string(s.size());
  if (s.too_large())
    line += " too_large read=" + std::to_string(s.bytes().size());
  const auto& t = o.analysis.timings;
  line += " cpu_us parse=" + std::to_string(Micros(t.parse)) +
          " normalise=" + std::to_string(Micros(t.normalise)) +
          " langid=" + std::to_string(Micros(t.langid)) +
          " fingerprint=" + std::to_string(Micros(t.fingerprint)) +
          " lookup=" + std::to_string(Micros(t.lookup)) +
          " decide=" + std::to_string(Micros(t.decide)) +
          " record=" + std::to_string(Micros(t.record));
  if (o.window_asked) {
    // Wall clock, not CPU: the engine works on its own threads.
    line += std::string(" window=") + (o.window_matched ? "matched" : "asked") +
            " window_us=" + std::to_string(Micros(t.window));
  }
  if (o.store_conflicts > 0) {
    // Another writer recorded a copy between this message's lookup and its
    // record; the lookup was repeated (store::Join::seen).
    line += " relookups=" + std::to_string(o.store_conflicts);
  }
  for (const auto& w : o.analysis.warnings) {
    line += " warning=";
    line += pipeline::WarningName(w.kind);
  }
  return line;
}

// Deletes every incoming X-Mailwave-* header (Session::Deletions gives the
// order).
bool DeleteOurs(SMFICTX* ctx, const Session& s) {
  bool ok = true;
  for (auto& d : s.Deletions()) {
    if (smfi_chgheader(ctx, d.name.data(), d.index, nullptr) != MI_SUCCESS)
      ok = false;
  }
  return ok;
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

// Only to learn the client's address (trusted relays); never answered when
// the MTA allows it.
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
  return RunStep(
      ctx, SMFIP_NR_MAIL, "mail: no session", "mail: failed",
      [ctx, argv](Session& s) {
        s.Reset();
        BeginMessage(s);
        s.set_queue_id(QueueId(ctx));
        std::string sender =
            argv != nullptr && argv[0] != nullptr ? argv[0] : "";
        if (sender.size() >= 2 && sender.front() == '<' && sender.back() == '>')
          sender = sender.substr(1, sender.size() - 2);
        s.set_sender(std::move(sender));
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

sfsistat EomInner(SMFICTX* ctx, Session& s) {
  if (s.queue_id().empty()) s.set_queue_id(QueueId(ctx));
  const std::string& qid = s.queue_id();
  const std::string tag = qid.empty() ? std::string("NOQUEUE") : qid;
  auto snap = CurrentSnapshot();
  if (!snap || !snap->analyzer) return OnError(qid, "eom: not configured");

  // A trusted relay's verdicts stand: its mailwave has analysed the message.
  if (!s.ours().empty() && snap->trusted.Contains(s.client())) {
    std::size_t n = 0;
    for (const auto& o : s.ours()) n += static_cast<std::size_t>(o.count);
    Metrics().CountTrusted();
    Log(LOG_INFO, tag + ": trusted relay: kept " + std::to_string(n) +
                      " incoming X-Mailwave headers; not analysed");
    return SMFIS_CONTINUE;
  }

  // Forged verdicts go whatever the analysis says.
  if (!DeleteOurs(ctx, s))
    Log(LOG_WARNING, tag + ": could not delete an incoming X-Mailwave header");
  if (!s.failure().empty()) return OnError(qid, s.failure());

  pipeline::Envelope envelope;
  envelope.sender = s.sender();
  envelope.queue_id = qid;
  const pipeline::CheckOptions options{.now = store::NowMillis(),
                                       .window = snap->window.get(),
                                       .policy = snap->policy.get()};
  const auto started = std::chrono::steady_clock::now();
  auto outcome = pipeline::Check(*snap->analyzer, snap->store.get(), s.bytes(),
                                 envelope, options);
  Metrics().RecordCheck(outcome, std::chrono::steady_clock::now() - started);
  if (!outcome) {
    // Nothing to read (an empty message): it passes untagged.
    Log(LOG_INFO, tag + ": not analysed: " + outcome.error().message() +
                      "; bytes=" + std::to_string(s.size()));
    return SMFIS_CONTINUE;
  }
  for (const auto& h : outcome->headers) {
    std::string name = h.name;
    std::string value = h.value;
    // The pipeline's values are one ASCII line; a line break slipping in
    // would end the header early, so none reaches the MTA.
    for (char& c : value) {
      if (c == '\r' || c == '\n') c = ' ';
    }
    if (smfi_addheader(ctx, name.data(), value.data()) != MI_SUCCESS)
      Log(LOG_WARNING, tag + ": could not add " + name);
  }
  if (outcome->event && !snap->wave_events.empty()) {
    auto w = pipeline::AppendLine(snap->wave_events,
                                  pipeline::WaveEventJson(*outcome->event));
    if (!w) {
      Metrics().CountFailure(Failure::kEvent);
      Log(LOG_WARNING, tag + ": wave event: " + w.error().message());
    }
  }
  Log(LOG_INFO, LogLine(s, *outcome));
  return SMFIS_CONTINUE;
}

sfsistat Eom(SMFICTX* ctx) noexcept {
  Session* s = nullptr;
  sfsistat result = SMFIS_CONTINUE;
  try {
    Metrics().CountMessage();
    s = SessionOf(ctx, true);
    if (s == nullptr) return OnError(QueueId(ctx), "eom: no session");
    result = EomInner(ctx, *s);
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

// Asks for the two actions used, drops the steps not needed, and lets the
// MTA send MAIL, the headers, the end of headers and the body without
// waiting for a reply to each (a round trip per header otherwise): those
// steps can only ever continue. libmilter offers the no-reply bits whether
// the MTA has them or not, and answers for us where it has not.
sfsistat Negotiate(SMFICTX* ctx, unsigned long f0, unsigned long f1,
                   unsigned long, unsigned long, unsigned long* pf0,
                   unsigned long* pf1, unsigned long* pf2,
                   unsigned long* pf3) noexcept {
  const unsigned long actions = SMFIF_ADDHDRS | SMFIF_CHGHDRS;
  if ((f0 & actions) != actions) return SMFIS_REJECT;
  *pf0 = actions;
  *pf1 = f1 & (SMFIP_NOHELO | SMFIP_NORCPT | SMFIP_NOUNKNOWN | SMFIP_NODATA);
  *pf2 = 0;
  *pf3 = 0;
  try {
    if (Session* s = SessionOf(ctx, true); s != nullptr) {
      const unsigned long quiet =
          f1 & (SMFIP_NR_CONN | SMFIP_NR_MAIL | SMFIP_NR_HDR | SMFIP_NR_EOH |
                SMFIP_NR_BODY);
      s->set_no_reply(quiet);
      *pf1 |= quiet;
    }
  } catch (...) {
    // No session: every step answers (and fails) as before.
  }
  return SMFIS_CONTINUE;
}

}  // namespace

void SetSnapshot(std::shared_ptr<const Snapshot> snapshot) {
  std::atomic_store(&g_snapshot, std::move(snapshot));
}

std::shared_ptr<const Snapshot> CurrentSnapshot() {
  return std::atomic_load(&g_snapshot);
}

std::size_t MessagesInFlight() {
  std::lock_guard lock(g_flight_mutex);
  return g_in_flight;
}

bool WaitForMessages(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(g_flight_mutex);
  return g_flight_done.wait_until(lock, deadline,
                                  [] { return g_in_flight == 0; });
}

smfiDesc Description(char* name) {
  smfiDesc d{};
  d.xxfi_name = name;
  d.xxfi_version = SMFI_VERSION;
  d.xxfi_flags = SMFIF_ADDHDRS | SMFIF_CHGHDRS;
  d.xxfi_connect = &Connect;
  d.xxfi_envfrom = &EnvFrom;
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
