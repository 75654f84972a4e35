// The CTPH signature's symbols, shared by the hash and the stored encoding.
#ifndef MW_FINGERPRINT_SRC_CTPH_SYMBOLS_H_
#define MW_FINGERPRINT_SRC_CTPH_SYMBOLS_H_

namespace mw::fingerprint::internal {

// In the order of their 6-bit codes (libfuzzy's base64 alphabet).
inline constexpr char kCtphSymbols[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace mw::fingerprint::internal

#endif  // MW_FINGERPRINT_SRC_CTPH_SYMBOLS_H_
