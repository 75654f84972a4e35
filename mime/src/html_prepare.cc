// Prepare: re-tokenize for gumbo with the guards described in html.cc and
// html_prepare.h.
#include "html_prepare.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "depth_estimate.h"
#include "html_chars.h"
#include "html_tokenizer.h"

namespace mw::mime::internal {
namespace {

class Preparer {
 public:
  // `mode` says which tags are passed on (see Mode).
  Preparer(std::string_view in, std::uint32_t depth_cap, Mode mode)
      : in_(in),
        tokens_(in),
        depth_(mode >= Mode::kShallow ? std::min(depth_cap, kShallowDepth)
                                      : depth_cap),
        mode_(mode) {
    out_.html.reserve(in.size() + in.size() / 16 + 64);
  }

  Prepared Run() && {
    while (true) {
      Token token = tokens_.Next();
      switch (token.kind) {
        case TokenKind::kEnd:
          return std::move(out_);
        case TokenKind::kText:
        case TokenKind::kDoctype:
          out_.html.append(Span(token));
          break;
        case TokenKind::kLessThan:
          out_.html += "&lt;";  // a '<' that starts no tag is text
          break;
        case TokenKind::kStartTag:
          StartTag(token);
          break;
        case TokenKind::kEndTag:
          EndTag(token);
          break;
        case TokenKind::kComment:
        case TokenKind::kTruncated:
        case TokenKind::kRawText:  // only after a start tag, read there
          break;
      }
    }
  }

 private:
  std::string_view Span(const Token& token) const {
    return in_.substr(token.begin, token.end - token.begin);
  }

  // Gumbo parses noscript as script-enabled raw text; mail clients show its
  // markup. xmp and plaintext are raw text too; as pre they keep their layout
  // and their escaped text decodes.
  static std::string_view Rename(const std::string& name) {
    if (name == "noscript") return "mw-noscript";
    if (name == "xmp" || name == "plaintext") return "pre";
    return name;
  }

  void EmitTag(const Token& tag, bool end_tag) {
    out_.html += end_tag ? "</" : "<";
    out_.html += Rename(tag.name);
    const std::string_view attrs =
        in_.substr(tag.name_end, tag.attrs_end - tag.name_end);
    if (end_tag || !HasRepeatedName(attrs)) {
      out_.html.append(attrs);
    } else {
      AppendFirstOfEachName(attrs);
    }
    out_.html += '>';
  }

  // Whether an attribute name comes twice (without ASCII case). gumbo keeps
  // the first, as browsers do, but after a repeated name without a value
  // only the code that records the parse error clears its tokenizer's
  // buffer, and gumbo_arena parses with max_errors = 0 (no error list): the
  // next name is then the two run together, so `<span lang lang
  // style="display:none">` lost its style and showed text a browser hides.
  // So only the first of each name reaches gumbo.
  bool HasRepeatedName(std::string_view attrs) {
    views_.clear();
    ForEachAttribute(attrs, [&](const AttributeSpan& a) {
      views_.push_back(a.name);
      return true;
    });
    if (views_.size() <= 8) {  // most tags: compare pairs, copy nothing
      for (std::size_t i = 1; i < views_.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (EqualNoCase(views_[i], views_[j])) return true;
        }
      }
      return false;
    }
    // A tag may hold kMaxAttributes names: comparing each with all before
    // it would be quadratic.
    SortNames();
    for (std::size_t i = 1; i < sorted_.size(); ++i) {
      if (sorted_[i].name == sorted_[i - 1].name) return true;
    }
    return false;
  }

  // sorted_: views_ lower-cased, by name, then place.
  void SortNames() {
    sorted_.resize(views_.size());
    for (std::size_t i = 0; i < views_.size(); ++i) {
      sorted_[i].name.assign(views_[i]);
      for (char& c : sorted_[i].name) c = AsciiLower(c);
      sorted_[i].index = i;
    }
    std::sort(sorted_.begin(), sorted_.end(),
              [](const Named& x, const Named& y) {
                return x.name != y.name ? x.name < y.name : x.index < y.index;
              });
  }

  // After HasRepeatedName said yes, with its views_.
  void AppendFirstOfEachName(std::string_view attrs) {
    SortNames();
    keep_.assign(sorted_.size(), false);
    for (std::size_t i = 0; i < sorted_.size(); ++i) {
      if (i == 0 || sorted_[i].name != sorted_[i - 1].name) {
        keep_[sorted_[i].index] = true;
      }
    }
    // A name may begin with '=' (`<p c c=x ="y">`): after an attribute
    // with a value that starts a new name, but after one without (the
    // dropped attribute gone) it would read as that attribute's value. So an
    // attribute without a value before such a name gets an empty one, which
    // is what it has anyway.
    std::size_t index = 0;
    bool last_without_value = false;
    ForEachAttribute(attrs, [&](const AttributeSpan& a) {
      if (keep_[index++]) {
        if (last_without_value && a.name.front() == '=') out_.html += "=\"\"";
        out_.html += ' ';
        out_.html.append(a.whole);
        last_without_value = !a.has_value;
      }
      return true;
    });
    // A self-closing flag still matters to foreign content (<path ... />).
    if (!Trim(attrs).empty() && Trim(attrs).back() == '/') out_.html += " /";
  }

  // Charges a tag to the work limit; false once the limit is spent.
  bool ChargeWork() {
    work_ += depth_.Depth() + 1;
    if (work_ > kMaxTagWork) out_.work_cut = true;
    return !out_.work_cut;
  }

  // Returns whether the end tag was passed to gumbo.
  bool EndTag(const Token& tag) {
    if (mode_ == Mode::kTextOnly) {
      EmitTextOnly(tag.name);
      return false;
    }
    if (Dropped(tag.name) || !ChargeWork()) return false;
    depth_.End(tag.name);
    EmitTag(tag, true);
    return true;
  }

  void StartTag(const Token& tag) {
    const std::string& name = tag.name;
    if (Dropped(name)) return;
    bool keep = mode_ != Mode::kTextOnly && ChargeWork();
    if (mode_ == Mode::kTextOnly) EmitTextOnly(name);
    if (keep && !depth_.Start(name)) {
      keep = false;
      out_.depth_cut = true;
    }
    if (keep) EmitTag(tag, false);
    if (!IsRawTextElement(name)) return;

    // Raw text: the tokenizer found where it ends; escape it so gumbo sees
    // only text.
    const Token raw = tokens_.Next();
    std::string_view content = Span(raw);
    if (name == "plaintext") {
      AppendEscaped(content);
      return;
    }
    if (name == "style") out_.styles.Add(content);
    // A dropped element's content is still passed on when it is visible text.
    if (keep || name == "textarea" || name == "xmp") AppendEscaped(content);
    const Token close = tokens_.Next();
    if (close.kind == TokenKind::kEnd) return;
    const bool emitted = close.kind == TokenKind::kEndTag && EndTag(close);
    if (keep && !emitted) {
      out_.html += "</";  // the element was opened, so it must be closed
      out_.html += Rename(name);
      out_.html += '>';
    }
  }

  void AppendEscaped(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
      std::size_t lt = text.find('<', i);
      if (lt == std::string_view::npos) {
        out_.html.append(text.substr(i));
        return;
      }
      out_.html.append(text.substr(i, lt - i));
      out_.html += "&lt;";
      i = lt + 1;
    }
  }

  bool Dropped(const std::string& name) const {
    return mode_ >= Mode::kNoFormatting && mode_ != Mode::kTextOnly &&
           KindOf(name) == TagKind::kFormatting;
  }

  // Text-only mode: block-level tags become paragraph breaks, <br> stays.
  void EmitTextOnly(const std::string& name) {
    static const std::unordered_set<std::string_view> kBlocks = {
        "address", "article", "aside",   "blockquote", "center", "dd", "div",
        "dl",      "dt",      "footer",  "form",       "h1",     "h2", "h3",
        "h4",      "h5",      "h6",      "header",     "hr",     "li", "ol",
        "p",       "pre",     "section", "table",      "tr",     "ul"};
    if (name == "br") {
      out_.html += "<br>";
    } else if (name == "td" || name == "th") {
      out_.html += ' ';
    } else if (kBlocks.contains(name)) {
      out_.html += "<p>";
    }
  }

  std::string_view in_;
  Tokenizer tokens_;
  DepthEstimate depth_;
  Mode mode_;
  Prepared out_;
  std::uint64_t work_ = 0;
  struct Named {
    std::string name;  // lower-cased
    std::size_t index = 0;
  };
  std::vector<std::string_view> views_;  // the emitted tag's attribute names
  std::vector<Named> sorted_;
  std::vector<bool> keep_;
};

}  // namespace

Prepared Prepare(std::string_view in, std::uint32_t depth_cap, Mode mode) {
  return Preparer(in, depth_cap, mode).Run();
}

}  // namespace mw::mime::internal
