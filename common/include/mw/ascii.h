// ASCII character classes for the parsers of protocol and header text, which
// must not depend on the locale (<cctype> does).
//
// Thread-safety: pure functions.
#ifndef MW_ASCII_H_
#define MW_ASCII_H_

namespace mw {

inline constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace mw

#endif  // MW_ASCII_H_
