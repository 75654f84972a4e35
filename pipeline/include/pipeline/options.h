// The module options the configuration sets, made in one place.
//
// Each module keeps its own options struct with documented defaults (STYLE.md
// section 2: a module never sees the whole configuration); these functions
// copy the configured values over. tests/pipeline/options_test.cc proves that
// a default Settings gives each module's default options, so a default is
// declared once in effect: change one side and that test names the field.
//
// Thread-safety: pure functions.
#ifndef MW_PIPELINE_OPTIONS_H_
#define MW_PIPELINE_OPTIONS_H_

#include "config/config.h"
#include "fingerprint/fingerprint.h"
#include "langid/langid.h"
#include "mime/message.h"
#include "store/redis.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace mw::pipeline {

mime::Limits MimeLimits(const config::MimeSettings& settings);
fingerprint::Options FingerprintOptions(
    const config::FingerprintSettings& settings);
langid::Options LangidOptions(const config::LangidSettings& settings);
// The SQLite store's options from [store] (and [fingerprint], whose options
// the store compares under); `log` is left empty.
store::SqliteOptions SqliteOptions(const config::Settings& settings);
// The Redis store's options from [store] and [fingerprint]: the secret is
// the one beside [store] path, as for SQLite; `log` is left empty.
store::RedisOptions RedisOptions(const config::Settings& settings);
store::WaveRule WaveRule(const config::WaveSettings& settings);

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_OPTIONS_H_
