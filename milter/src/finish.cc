#include "finish.h"

#include <syslog.h>

#include <chrono>
#include <string>

#include "log.h"
#include "metrics_hooks.h"
#include "pipeline/check.h"
#include "store/store.h"

namespace mw::milter {
namespace {

long long Micros(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

std::string Tag(std::string_view queue_id) {
  return queue_id.empty() ? std::string("NOQUEUE") : std::string(queue_id);
}

// The pipeline's values are one ASCII line; a line break slipping in would
// end a header or a reply early, so none reaches the MTA.
std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return s;
}

std::string LogLine(const Session& s, const pipeline::Outcome& o) {
  std::string line = Tag(s.queue_id());
  line += ": language=" + (o.analysis.language.code.empty()
                               ? std::string("und")
                               : o.analysis.language.code);
  if (o.wave) {
    line += " verdict=cluster:" + store::ClusterIdString(o.wave->cluster) +
            " members=" + std::to_string(o.wave->size) +
            (o.wave->wave ? " wave=yes" : " wave=no");
    line += " kind=" + std::string(pipeline::WaveKindName(o.wave->kind)) +
            " why=" + std::string(pipeline::WaveReasonName(o.wave->reason)) +
            " action=" + std::string(pipeline::ActionName(o.action));
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

// [wave] action, as the pipeline decided it (only a copy of a spread wave
// gets one), into the reply: a quarantine, a 550 or a 451.
void ApplyAction(const pipeline::Outcome& o, EndOfMessage* end) {
  const std::string text = OneLine(o.action_text);
  switch (o.action) {
    case pipeline::Action::kNone:
      return;
    case pipeline::Action::kQuarantine:
      end->quarantine = "mailwave: " + text;
      return;
    case pipeline::Action::kReject:
      end->verdict = EndOfMessage::Verdict::kReject;
      end->rcode = "550";
      end->xcode = "5.7.1";
      end->text = text;
      return;
    case pipeline::Action::kTempfail:
      end->verdict = EndOfMessage::Verdict::kTempfail;
      end->rcode = "451";
      end->xcode = "4.7.1";
      end->text = text;
      return;
  }
}

}  // namespace

EndOfMessage OnFailure(std::string_view queue_id,
                       std::string_view what) noexcept {
  EndOfMessage end;
  try {
    Metrics().CountFailure(Failure::kCallback);
    auto snap = CurrentSnapshot();
    const bool tempfail = snap && snap->on_error == OnError::kTempfail;
    if (tempfail) end.verdict = EndOfMessage::Verdict::kTempfail;
    std::string line = Tag(queue_id);
    line += ": ";
    line += what;
    line += tempfail ? "; tempfail" : "; accepted untagged";
    Log(LOG_ERR, line);
  } catch (...) {
  }
  return end;
}

void Refused(std::string_view tag, std::string_view what) noexcept {
  try {
    Metrics().CountFailure(Failure::kAction);
    Log(LOG_WARNING, std::string(tag) + ": " + std::string(what));
  } catch (...) {
  }
}

EndOfMessage Finish(const Snapshot* snap, Session& s) {
  const std::string& qid = s.queue_id();
  const std::string tag = Tag(qid);
  if (snap == nullptr || !snap->analyzer)
    return OnFailure(qid, "eom: not configured");

  // A trusted relay's verdicts stand: its mailwave has analysed the message.
  if (!s.ours().empty() && snap->trusted.Contains(s.client())) {
    std::size_t n = 0;
    for (const auto& o : s.ours()) n += static_cast<std::size_t>(o.count);
    Metrics().CountTrusted();
    Log(LOG_INFO, tag + ": trusted relay: kept " + std::to_string(n) +
                      " incoming X-Mailwave headers; not analysed");
    return {};
  }

  // Forged verdicts go whatever the analysis says.
  EndOfMessage end;
  end.deletions = s.Deletions();
  if (!s.failure().empty()) {
    EndOfMessage failed = OnFailure(qid, s.failure());
    failed.deletions = std::move(end.deletions);
    return failed;
  }

  pipeline::Envelope envelope;
  envelope.sender = s.sender();
  envelope.queue_id = qid;
  envelope.recipients = s.recipients();
  envelope.client_ip = s.ClientIp();
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
    return end;
  }
  ApplyAction(*outcome, &end);
  // A message the MTA is told to refuse is never delivered: no headers.
  if (end.verdict == EndOfMessage::Verdict::kContinue) {
    for (const auto& h : outcome->headers)
      end.headers.emplace_back(h.name, OneLine(h.value));
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
  return end;
}

}  // namespace mw::milter
