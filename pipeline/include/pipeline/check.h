// One message checked against the store: analysis, lookup, decision, record,
// and the headers the milter adds. The milter and `mailwave check` both call
// Check, so they say the same thing about the same mail.
//
// Never harms the mail flow: a store that fails leaves the message untagged
// (no wave header; the language header is still given) with a kStore warning;
// a degraded analysis (budget spent, a hash that could not be computed) is
// neither looked up nor recorded.
//
// Thread-safety: Check may run on many threads at once with one Analyzer and
// one Store.
#ifndef MW_PIPELINE_CHECK_H_
#define MW_PIPELINE_CHECK_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/analysis.h"
#include "pipeline/policy.h"
#include "pipeline/verdict.h"
#include "pipeline/window.h"
#include "store/store.h"

namespace mw::pipeline {

struct CheckOptions {
  // Look up and decide, but record nothing.
  bool dry_run = false;
  // The message's arrival time.
  store::UnixMillis now = 0;
  // The comparison window (window.h), or null: asked when the store's index
  // left the message without a match; a recorded message is added to it.
  Window* window = nullptr;
  // The site's allow list (policy.h), or null: none.
  const Policy* policy = nullptr;
};

// A cluster that just became a wave: the members delivered before anyone
// knew (docs/waves.md tells how to pull them back).
struct WaveEvent {
  store::UnixMillis time = 0;
  store::Cluster cluster;
  std::string queue_id;  // of the message that made it a wave
  std::vector<store::Member> earlier;
};

struct Outcome {
  Analysis analysis;
  std::optional<Match> match;               // the earlier mail it duplicates
  std::optional<store::Recorded> recorded;  // absent under dry_run or failure
  // The cluster the message joined or started (dry run: the one it would
  // join; nullopt when it would start one).
  std::optional<store::ClusterId> cluster;
  std::optional<WaveVerdict> wave;  // present when it matched earlier mail
  std::vector<Header> headers;      // in the order the milter adds them
  // What the MTA should do beyond the headers ([wave] action), and the
  // reply text for reject and tempfail ("spread wave, cluster 7f3a9c21").
  Action action = Action::kNone;
  std::string action_text;
  std::optional<WaveEvent> event;
  // The window was asked (options.window set and the index found no match),
  // and how many stored messages it named.
  bool window_asked = false;
  std::size_t window_candidates = 0;
  bool window_matched = false;  // the match came from the window's answer
  // Lookups repeated because another writer recorded a message sharing a key
  // with this one between its lookup and its record (store::Join::seen).
  std::uint32_t store_conflicts = 0;
};

// `store` may be null (no store configured): only the language header.
Result<Outcome> Check(const Analyzer& analyzer, store::Store* store,
                      std::string_view bytes, const Envelope& envelope,
                      const CheckOptions& options);

// The same after an analysis made elsewhere (the text path, tests).
Outcome CheckAnalysis(const Analyzer& analyzer, store::Store* store,
                      Analysis analysis, const Envelope& envelope,
                      const CheckOptions& options);

// The wave event as one JSON line (no newline):
// {"event":"wave","time":"…","cluster":"7f3a9c21","size":5,"senders":4,
//  "language":"en","first":"…","queue_id":"…",
//  "earlier":[{"queue_id":"…","message_id_hash":"…","arrival":"…"},…]}
std::string WaveEventJson(const WaveEvent& event);

// Appends `line` and a newline to `path` with one write(2) on an O_APPEND
// descriptor, so lines from concurrent writers never interleave.
Result<bool> AppendLine(const std::string& path, std::string_view line);

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_CHECK_H_
