// Word segmentation and script classification shared by the detector and the
// builder (private to mw::langid).
#ifndef MW_LANGID_SRC_TEXT_H_
#define MW_LANGID_SRC_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace mw::langid::internal {

// Called for every word piece: its UTF-8 bytes (a view into the text being
// segmented) and its ICU UScriptCode. Kana wins over Han inside one piece, so
// "食べる" is Hiragana.
using WordSink = void (*)(void* context, std::string_view word, int script);

// Reports the words of `text`: the pieces SplitPieces finds, except that runs
// of letters of the scripts written without spaces (Thai, Lao, Myanmar, Khmer,
// kana, Han) are cut into pieces of two letters (four in Thai, Lao, Myanmar
// and Khmer; combining marks stay with their letter), about the mean length
// of the words ICU's dictionary BreakIterator finds there. Those scripts each
// decide their language alone, so only the number of their words counts, and
// it is an estimate. Numbers, punctuation and symbols produce nothing.
void SegmentWords(std::string_view text, WordSink sink, void* context);

// Splits one word at every code point that is neither a letter nor a combining
// mark (so at apostrophes: "don't" -> "don", "t", as the subtitle word lists
// are tokenised), drops pieces that contain a digit and pieces with no letter
// of a non-Common script, and reports the rest.
void SplitPieces(std::string_view word, WordSink sink, void* context);

// NFKC case folding (ICU nfkc_cf), the normalisation mime::NormaliseText
// applies.
std::string FoldCase(std::string_view utf8);

// True when `utf8` is well-formed UTF-8.
bool IsValidUtf8(std::string_view utf8);

// The ICU script name ("Latin") of a UScriptCode.
std::string_view ScriptName(int script);

// Counts the Han characters of `piece` that mark simplified or traditional
// Chinese (han_variants.inc: ideographs several times as frequent in
// mainland subtitles as in Taiwanese ones, or the other way round);
// characters written the same in both scripts count for neither.
void CountHanVariants(std::string_view piece, std::uint32_t* simplified,
                      std::uint32_t* traditional);

// The language a script identifies alone, or empty (Han gives "zh"; the
// detector moves Han to "ja" when the text has kana).
std::string_view DirectLanguage(int script);

}  // namespace mw::langid::internal

#endif  // MW_LANGID_SRC_TEXT_H_
