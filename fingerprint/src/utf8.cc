#include "utf8.h"

namespace mw::fingerprint::internal {

bool IsWordChar(char32_t c) {
  if (c < 0x80) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
  }
  if (c < 0xC0)
    return c == 0xAA || c == 0xB5 || c == 0xBA;  // Latin-1 punctuation, symbols
  if (c == 0xD7 || c == 0xF7) return false;      // × ÷
  if (c >= 0x2000 && c <= 0x2BFF)
    return false;  // punctuation, symbols, arrows, box drawing
  if (c >= 0x3000 && c <= 0x303F) return false;  // CJK punctuation
  if (c >= 0xFE30 && c <= 0xFE4F) return false;  // CJK compatibility forms
  if (c >= 0xFF00 && c <= 0xFF0F)
    return false;  // fullwidth punctuation (rare after NFKC)
  if (c == 0xFFFD || c == 0xFEFF) return false;
  if (c >= 0x1F000 && c <= 0x1FAFF) return false;  // emoji and pictographs
  return true;
}

bool IsUnspacedScript(char32_t c) {
  return (c >= 0x0E00 && c <= 0x0EFF) ||  // Thai, Lao
         (c >= 0x1000 && c <= 0x109F) ||  // Myanmar
         (c >= 0x1780 && c <= 0x17FF) ||  // Khmer
         (c >= 0x2E80 && c <= 0x2FDF) ||  // CJK radicals
         (c >= 0x3040 && c <= 0x30FF) ||  // Hiragana, Katakana
         (c >= 0x3100 && c <= 0x31FF) ||  // Bopomofo, Katakana extensions
         (c >= 0x3400 && c <= 0x4DBF) ||  // CJK extension A
         (c >= 0x4E00 && c <= 0x9FFF) ||  // CJK unified ideographs
         (c >= 0xF900 && c <= 0xFAFF) ||  // CJK compatibility ideographs
         (c >= 0x20000 && c <= 0x3FFFF);  // CJK extensions B and later
}

}  // namespace mw::fingerprint::internal
