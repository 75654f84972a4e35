// The header fields mailwave adds to a message. The pipeline writes them
// (pipeline/verdict.h); the milter deletes incoming ones, which are forged
// unless a trusted relay wrote them (milter/src/session.h).
#ifndef MW_HEADER_NAMES_H_
#define MW_HEADER_NAMES_H_

#include <string_view>

namespace mw {

inline constexpr std::string_view kWaveHeader = "X-Mailwave-Wave";
inline constexpr std::string_view kLanguageHeader = "X-Mailwave-Language";
// Every header mailwave adds starts with this.
inline constexpr std::string_view kHeaderPrefix = "X-Mailwave-";

}  // namespace mw

#endif  // MW_HEADER_NAMES_H_
