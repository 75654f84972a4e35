// What Collect does to a text before segmenting it (private to mw::langid;
// MapC1Controls, the third part, is public in langid.h).
#ifndef MW_LANGID_SRC_PREPROCESS_H_
#define MW_LANGID_SRC_PREPROCESS_H_

#include <string>
#include <string_view>

namespace mw::langid::internal {

// True when `s` holds a C1 control character (U+0080-U+009F, as UTF-8).
bool HasC1(std::string_view s);

// `text` with every address replaced by as many spaces, so that line and
// paragraph breaks stay where they are: a whitespace-delimited token holding
// "://" (a URL) or "@" (an e-mail address), or beginning with "www.". Empty
// when the text holds none of the three markers (the caller then reads the
// text itself). URLs and addresses are no language's words (a link in
// an English mail would otherwise read as a paragraph of Portuguese).
std::string BlankAddresses(std::string_view text);

}  // namespace mw::langid::internal

#endif  // MW_LANGID_SRC_PREPROCESS_H_
