// What `mailwave fingerprint` and `mailwave compare` share: reading a message
// into its fingerprint the way the daemon does (mime::Parse, mime::Normalise,
// fingerprint::Compute).
#ifndef MW_CLI_CMD_FINGERPRINT_H_
#define MW_CLI_CMD_FINGERPRINT_H_

#include <string>
#include <string_view>

#include "config/config.h"
#include "fingerprint/fingerprint.h"
#include "mw/result.h"

namespace mw::cli {

// Copies the [fingerprint] settings into the module's own options.
// Reads `path` ("-" for standard input). As a message: parsed and normalised as
// the daemon does; with `plain_text`: the bytes are UTF-8 text, normalised with
// mime::NormaliseText. Returns the normalised body. Errors name the file.
Result<std::string> ReadBody(const std::string& path, bool plain_text,
                             const config::Settings& settings);

// "sentences" or "paragraphs".
std::string_view KindName(fingerprint::BlockKind kind);

}  // namespace mw::cli

#endif  // MW_CLI_CMD_FINGERPRINT_H_
