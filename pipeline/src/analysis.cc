#include "pipeline/analysis.h"

#include <algorithm>
#include <utility>

#include "mw/budget.h"
#include "pipeline/options.h"
#include "sender/header_fields.h"
#include "stage_clock.h"

namespace mw::pipeline {
namespace {

void NoteBudget(Analysis& a, std::string_view stage) {
  a.degraded = true;
  a.warnings.push_back({WarningKind::kBudget,
                        "work budget spent before " + std::string(stage) +
                            " (pipeline.max_cpu or max_wall); no duplicate "
                            "verdict"});
}

// The list is machine data read once per process; every Analyzer (one per
// configuration reload) shares it.
std::shared_ptr<const sender::SuffixList> Suffixes() {
  static const std::shared_ptr<const sender::SuffixList> list = [] {
    auto opened = sender::SuffixList::Open();
    return opened ? *opened : nullptr;
  }();
  return list;
}

}  // namespace

std::string_view WarningName(WarningKind kind) {
  switch (kind) {
    case WarningKind::kLimit:
      return "limit";
    case WarningKind::kBudget:
      return "budget";
    case WarningKind::kParser:
      return "parser";
    case WarningKind::kCharset:
      return "charset";
    case WarningKind::kEncoding:
      return "encoding";
    case WarningKind::kPart:
      return "part";
    case WarningKind::kDegraded:
      return "degraded";
    case WarningKind::kStore:
      return "store";
    case WarningKind::kWindow:
      return "window";
  }
  return "part";
}

Warning ClassifyMimeWarning(std::string_view line) {
  const auto colon = line.find(": ");
  const std::string_view head = colon == std::string_view::npos
                                    ? std::string_view()
                                    : line.substr(0, colon);
  const std::string detail(line);
  if (head == "limit") return {WarningKind::kLimit, detail};
  if (head == "budget") return {WarningKind::kBudget, detail};
  if (head == "parser") return {WarningKind::kParser, detail};
  if (head == "charset") return {WarningKind::kCharset, detail};
  if (head == "encoding") return {WarningKind::kEncoding, detail};
  if (head.starts_with("part ")) {
    const std::string_view rest = line.substr(colon + 2);
    if (rest.starts_with("charset:")) return {WarningKind::kCharset, detail};
    if (rest.find("invalid byte sequence") != std::string_view::npos ||
        rest.find("base64") != std::string_view::npos ||
        rest.find("uuencoded") != std::string_view::npos) {
      return {WarningKind::kEncoding, detail};
    }
    if (rest.find("too large or too costly") != std::string_view::npos) {
      return {WarningKind::kLimit, detail};
    }
  }
  return {WarningKind::kPart, detail};
}

Result<mime::Text> ToText(std::string_view bytes, bool plain_text,
                          const mime::Limits& limits) {
  if (plain_text) {
    mime::Text t;
    t.body = mime::NormaliseText(bytes.substr(
        0, std::min<std::size_t>(bytes.size(), limits.max_text_bytes)));
    return t;
  }
  auto message = mime::Parse(bytes, limits);
  if (!message) return Fail(message.error());
  return mime::Normalise(*message);
}

std::string LanguageText(const mime::Text& text) {
  return text.subject + "\n\n" + text.body;
}

Analyzer::Analyzer(const config::Settings& settings,
                   std::shared_ptr<const langid::Model> model)
    : settings_(settings),
      limits_(MimeLimits(settings.mime)),
      fingerprint_(FingerprintOptions(settings.fingerprint)),
      langid_(LangidOptions(settings.langid)),
      model_(std::move(model)),
      suffixes_(Suffixes()) {
  sender_.trusted_authserv_ids = settings.wave.trusted_authserv_ids;
  sender_.suffixes = suffixes_.get();
  // An Analyzer is made before the threads that share it: GMime's one-time
  // set-up (mime::Init) belongs here, not in the first message's parse.
  mime::Init();
}

Result<std::shared_ptr<const Analyzer>> Analyzer::Create(
    const config::Settings& settings) {
  auto model = langid::OpenDictionary(settings.langid.dictionary);
  if (!model) return Fail(model.error());
  return Create(settings,
                std::make_shared<const langid::Model>(std::move(*model)));
}

std::shared_ptr<const Analyzer> Analyzer::Create(
    const config::Settings& settings,
    std::shared_ptr<const langid::Model> model) {
  return std::shared_ptr<const Analyzer>(
      new Analyzer(settings, std::move(model)));
}

Result<Analysis> Analyzer::Analyze(std::string_view bytes,
                                   const Envelope& envelope) const {
  StageClock clock;
  const Budget budget = Budget::StartAt(
      clock.last(), settings_.pipeline.max_cpu, settings_.pipeline.max_wall);
  Analysis a;
  a.size = bytes.size();
  mime::Limits limits = limits_;
  limits.budget = budget;
  Result<mime::Message> message = mime::Parse(bytes, limits);
  if (!message) return Fail(message.error());
  for (const std::string& w : message->warnings)
    a.warnings.push_back(ClassifyMimeWarning(w));
  a.parts = message->parts.size();
  a.message_id = message->message_id;
  a.sender = !envelope.sender.empty()        ? envelope.sender
             : !message->return_path.empty() ? message->return_path
                                             : message->from;
  {
    // The header as the MTA passed it, in order: trust in an
    // Authentication-Results field depends on where it stands.
    const std::vector<sender::Field> header = sender::ReadHeader(bytes);
    a.identity = sender::Identify(
        header, {.sender = a.sender, .client_ip = envelope.client_ip}, sender_);
  }
  // The parse stage includes reading the sender's identity from the header
  // (microseconds): one clock reading ends both.
  clock.Lap(&a.timings.parse);
  if (budget.ExceededAt(clock.last())) {
    NoteBudget(a, "normalisation");
    return a;
  }
  const mime::Text text = mime::Normalise(*message);
  clock.Lap(&a.timings.normalise);
  a.body_bytes = text.body.size();
  if (mime::NormalisationDegraded()) {
    a.degraded = true;
    a.warnings.push_back(
        {WarningKind::kDegraded,
         "degraded: ICU normalisation data missing (install libicu's data); "
         "text case-folded only, no duplicate verdict"});
  }
  if (budget.ExceededAt(clock.last())) {
    NoteBudget(a, "language identification");
    return a;
  }
  a.language = langid::Detect(LanguageText(text), *model_, langid_);
  clock.Lap(&a.timings.langid);
  if (budget.ExceededAt(clock.last())) {
    NoteBudget(a, "fingerprinting");
    return a;
  }
  a.fingerprint = fingerprint::Compute(text.body, fingerprint_);
  clock.Lap(&a.timings.fingerprint);
  if (a.fingerprint.degraded) {
    a.degraded = true;
    a.warnings.push_back(
        {WarningKind::kDegraded,
         "degraded: a SHA-1 could not be computed; no duplicate verdict"});
  }
  if (budget.ExceededAt(clock.last())) {
    // The fingerprint is complete, but a message that overran its budget is
    // not stored: a flood of costly messages must not fill the store either.
    NoteBudget(a, "the store lookup");
  }
  return a;
}

}  // namespace mw::pipeline
