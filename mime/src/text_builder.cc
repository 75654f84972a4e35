// Text output with paragraph, line and space rules (see text_builder.h).
#include "text_builder.h"

#include <cstddef>
#include <string>
#include <string_view>

#include "html_chars.h"

namespace mw::mime::internal {

void TextBuilder::Inline(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (IsHtmlSpace(s[i])) {
      pending_space_ = true;
      ++i;
      continue;
    }
    if (s.compare(i, 2, "\xC2\xA0") == 0) {
      pending_space_ = true;
      i += 2;
      continue;
    }
    std::size_t end = i + 1;
    while (end < s.size() && !IsHtmlSpace(s[end]) &&
           s.compare(end, 2, "\xC2\xA0") != 0)
      ++end;
    Flush();
    out_.append(s.substr(i, end - i));
    i = end;
  }
}

void TextBuilder::Preformatted(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n') {
      if (!out_.empty()) LineBreak();
      continue;
    }
    Flush();
    if (s.compare(i, 2, "\xC2\xA0") == 0) {  // &nbsp;, as in Inline
      out_ += ' ';
      ++i;
      continue;
    }
    out_ += s[i];
  }
}

std::string TextBuilder::Finish() {
  while (!out_.empty() && (out_.back() == ' ' || out_.back() == '\n'))
    out_.pop_back();
  return std::move(out_);
}

void TextBuilder::Flush() {
  if (out_.empty()) {
    pending_break_ = 0;
    pending_space_ = false;
    return;
  }
  if (pending_break_ > 0) {
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    int have = 0;
    for (std::size_t k = out_.size(); k > 0 && have < 2 && out_[k - 1] == '\n';
         --k)
      ++have;
    for (int k = have; k < pending_break_; ++k) out_ += '\n';
    pending_break_ = 0;
    pending_space_ = false;
    return;
  }
  if (pending_space_) {
    if (out_.back() != ' ' && out_.back() != '\n') out_ += ' ';
    pending_space_ = false;
  }
}

}  // namespace mw::mime::internal
