// One message's analysis: raw bytes (+ envelope facts when known) -> Analysis.
//
// This is the pure part of what the milter does per message, and what
// `mailwave check`, `fingerprint` and `langid` run: MIME parsing and text
// extraction, normalisation, language identification and fingerprints, under
// one work budget. The store and the verdict come after (pipeline/check.h).
//
// Thread-safety: an Analyzer is immutable after Create; share it as
// std::shared_ptr<const Analyzer> (a configuration reload builds a new one)
// and call Analyze from any number of threads.
#ifndef MW_PIPELINE_ANALYSIS_H_
#define MW_PIPELINE_ANALYSIS_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "fingerprint/fingerprint.h"
#include "langid/langid.h"
#include "langid/model.h"
#include "mime/message.h"
#include "mw/result.h"
#include "sender/identity.h"

namespace mw::pipeline {

// What the MTA knows about a message beyond its bytes; every field may be
// empty (the admin program has no envelope).
struct Envelope {
  std::string sender;    // MAIL FROM address, "" for the null sender
  std::string queue_id;  // the MTA's queue id, for logs and wave events
  std::vector<std::string> recipients;  // RCPT TO addresses; empty: unknown
  std::string client_ip;                // the SMTP client's address; "" unknown
};

// Typed warnings, so that a policy or a script reads a kind, not free text.
enum class WarningKind {
  kLimit,     // a configured size or count limit cut the message
  kBudget,    // the work budget ran out; the analysis stopped early
  kParser,    // the message is malformed (GMime's warnings)
  kCharset,   // an unknown or wrong charset; text decoded as a fallback
  kEncoding,  // bad transfer encoding or invalid bytes replaced
  kPart,      // another problem of one MIME part
  kDegraded,  // a hash or normalisation could not be computed as specified:
              // no duplicate verdict is drawn from this analysis
  kStore,     // the store failed; the message passes untagged
  kWindow,    // the comparison window gave no answer in time (or failed):
              // the index's answer alone decided
};

// "limit", "budget", "parser", "charset", "encoding", "part", "degraded",
// "store", "window".
std::string_view WarningName(WarningKind kind);

struct Warning {
  WarningKind kind;
  std::string detail;  // one line, for people
  friend bool operator==(const Warning&, const Warning&) = default;
};

// Reads mime::Message's "<category>: <detail>" lines as typed warnings.
Warning ClassifyMimeWarning(std::string_view line);

// CPU time per stage (of the thread that ran it).
struct Timings {
  std::chrono::nanoseconds parse{0};        // MIME parse and text extraction
  std::chrono::nanoseconds normalise{0};    // ICU normalisation
  std::chrono::nanoseconds langid{0};       // language identification
  std::chrono::nanoseconds fingerprint{0};  // fingerprints and their encoding
  std::chrono::nanoseconds lookup{0};       // store: find candidates
  std::chrono::nanoseconds decide{0};       // comparisons with the candidates
  std::chrono::nanoseconds record{0};       // store: record and join
  // The comparison window (window.h): wall-clock time from the query to its
  // answer (the engine's thread does the work, batched with other queries),
  // and the store reading the messages it named; 0 when it did not run.
  std::chrono::nanoseconds window{0};
};

struct Analysis {
  std::uint64_t size = 0;        // raw bytes
  std::size_t parts = 0;         // MIME leaf parts visited
  std::uint64_t body_bytes = 0;  // normalised body
  std::string message_id;        // Message-ID header, without brackets
  // The envelope sender, else Return-Path, else the From address.
  std::string sender;
  // Who sent it (sender/identity.h): from the site's trusted
  // Authentication-Results, the envelope and the client address.
  sender::Identity identity;
  langid::Language language;
  fingerprint::Fingerprint fingerprint;
  std::vector<Warning> warnings;
  // The budget ran out or a stage could not compute what it specifies: the
  // fingerprint must not be compared or stored.
  bool degraded = false;
  Timings timings;
};

class Analyzer {
 public:
  // Opens the language dictionary ([langid] dictionary, else the default
  // places). Fails when it cannot be opened.
  static Result<std::shared_ptr<const Analyzer>> Create(
      const config::Settings& settings);
  // With a model already open (tests, `langid --dict`).
  static std::shared_ptr<const Analyzer> Create(
      const config::Settings& settings,
      std::shared_ptr<const langid::Model> model);

  // Analyses one message within the [pipeline] budget, which starts now on
  // the calling thread. Fails only when the bytes hold nothing to read (an
  // empty message); every other problem is a warning, and budget overruns and
  // failed hashes set `degraded`.
  Result<Analysis> Analyze(std::string_view bytes,
                           const Envelope& envelope) const;

  const config::Settings& settings() const { return settings_; }
  const fingerprint::Options& fingerprint_options() const {
    return fingerprint_;
  }
  const langid::Options& langid_options() const { return langid_; }
  const mime::Limits& mime_limits() const { return limits_; }
  const langid::Model& model() const { return *model_; }
  // The Public Suffix List identities are reduced with (null when libpsl
  // could not load one: domains are then used as written).
  const sender::SuffixList* suffixes() const { return suffixes_.get(); }

 private:
  Analyzer(const config::Settings& settings,
           std::shared_ptr<const langid::Model> model);

  config::Settings settings_;
  mime::Limits limits_;
  fingerprint::Options fingerprint_;
  langid::Options langid_;
  std::shared_ptr<const langid::Model> model_;
  std::shared_ptr<const sender::SuffixList> suffixes_;
  sender::Options sender_;
};

// The normalised text of a message (`plain_text`: of plain UTF-8 text), as
// the analysis reads it; for the commands that need no more than the text
// (`fingerprint`, `compare`). Fails as mime::Parse does.
Result<mime::Text> ToText(std::string_view bytes, bool plain_text,
                          const mime::Limits& limits);

// The text language identification reads for a message: the subject, a blank
// line, the body (both normalised).
std::string LanguageText(const mime::Text& text);

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_ANALYSIS_H_
