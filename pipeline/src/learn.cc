#include "pipeline/learn.h"

#include <utility>

#include "pipeline/options.h"
#include "store_message.h"

namespace mw::pipeline {

Result<Learned> Learn(const Analyzer& analyzer, store::Store& store,
                      std::string_view bytes, const Envelope& envelope,
                      store::Mark mark, store::UnixMillis now) {
  auto analysis = analyzer.Analyze(bytes, envelope);
  if (!analysis) return Fail(analysis.error());
  const Analysis& a = *analysis;
  if (!Storable(a, analyzer.settings())) {
    return Fail(Error::InvalidArgument(
        a.degraded ? "analysis degraded (work budget or hashing): no "
                     "fingerprint to find its cluster by"
                   : "body shorter than wave.min_body: such mail forms no "
                     "cluster"));
  }
  const store::Message m = StoreMessage(a, envelope, now);
  auto lookup = store.Find(m);
  if (!lookup) return Fail(lookup.error());
  Learned learned;
  learned.match =
      Decide(a.fingerprint, *lookup, analyzer.fingerprint_options());
  store::ClusterId id = 0;
  if (learned.match) {
    id = learned.match->cluster;
  } else {
    // Start the cluster, so that later copies have something to join and
    // follow the mark.
    auto rec = store.Record(m, store::Join{},
                            WaveRule(analyzer.settings().wave));
    if (!rec) return Fail(rec.error());
    id = rec->cluster.id;
    learned.started = true;
  }
  auto marked = store.SetMark(id, mark, now);
  if (!marked) return Fail(marked.error());
  learned.cluster = std::move(*marked);
  return learned;
}

}  // namespace mw::pipeline
