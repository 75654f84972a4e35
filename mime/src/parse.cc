// mime::Parse: RFC 822 bytes to a Message value, with GMime.
//
// GMime objects are created and released inside Parse: none escapes, since they
// are not thread-safe. The tree walk is bounded by Limits at every step (depth,
// part count, text budget), and every defect becomes a warning rather than a
// failure, in the manner of Postfix's mime_state.c, so the milter always has
// something to decide on.
#include <gmime/gmime.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "charset.h"
#include "gobject.h"
#include "html.h"
#include "html_chars.h"
#include "mime/message.h"
#include "uuencode.h"

namespace mw::mime {
namespace {

// A hostile message can raise thousands of parser warnings; past this many, one
// summary line.
constexpr std::size_t kMaxWarnings = 50;

struct OptionsFree {
  void operator()(GMimeParserOptions* o) const {
    g_mime_parser_options_free(o);
  }
};

std::string Sha1Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha1(), nullptr) != 1)
    return {};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 15]);
  }
  return out;
}

// Cuts `s` to at most `max` bytes without splitting a UTF-8 sequence.
void CutUtf8(std::string& s, std::size_t max) {
  if (s.size() <= max) return;
  std::size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  s.resize(n);
}

const char* WarningText(GMimeParserWarning code) {
  switch (code) {
    case GMIME_WARN_DUPLICATED_HEADER:
      return "duplicated header";
    case GMIME_WARN_DUPLICATED_PARAMETER:
      return "duplicated header parameter";
    case GMIME_WARN_UNENCODED_8BIT_HEADER:
      return "unencoded 8-bit header";
    case GMIME_WARN_INVALID_CONTENT_TYPE:
      return "invalid content type";
    case GMIME_WARN_INVALID_RFC2047_HEADER_VALUE:
      return "invalid RFC 2047 encoded word";
    case GMIME_WARN_MALFORMED_MULTIPART:
      return "multipart without parts";
    case GMIME_WARN_TRUNCATED_MESSAGE:
      return "truncated message";
    case GMIME_WARN_MALFORMED_MESSAGE:
      return "malformed message";
    case GMIME_CRIT_INVALID_HEADER_NAME:
      return "invalid header name";
    case GMIME_CRIT_CONFLICTING_HEADER:
      return "conflicting header";
    case GMIME_CRIT_CONFLICTING_PARAMETER:
      return "conflicting header parameter";
    case GMIME_CRIT_MULTIPART_WITHOUT_BOUNDARY:
      return "multipart without boundary";
    case GMIME_WARN_INVALID_PARAMETER:
      return "invalid header parameter";
    case GMIME_WARN_INVALID_ADDRESS_LIST:
      return "invalid address list";
    case GMIME_CRIT_NESTING_OVERFLOW:
      return "MIME nesting overflow";
    case GMIME_WARN_PART_WITHOUT_CONTENT:
      return "part without content";
    case GMIME_CRIT_PART_WITHOUT_HEADERS_OR_CONTENT:
      return "part without headers or content";
  }
  return "parser warning";
}

// Collects parser warnings; GMime calls back synchronously from inside
// construct_message.
struct WarningSink {
  std::vector<std::string> lines;
  std::size_t dropped = 0;
  bool truncated = false;

  void Add(std::string line) {
    if (std::find(lines.begin(), lines.end(), line) != lines.end()) return;
    if (lines.size() >= kMaxWarnings) {
      ++dropped;
      return;
    }
    lines.push_back(std::move(line));
  }
};

void OnParserWarning(gint64 offset, GMimeParserWarning code, const gchar* item,
                     gpointer data) {
  auto* sink = static_cast<WarningSink*>(data);
  if (code == GMIME_WARN_TRUNCATED_MESSAGE) sink->truncated = true;
  std::string line = std::string("parser: ") + WarningText(code);
  // The item is attacker-controlled (a header name or value): keep it short and
  // printable.
  if (item != nullptr && *item != '\0' &&
      code != GMIME_WARN_DUPLICATED_HEADER) {
    std::string shown(item, strnlen(item, 60));
    for (char& c : shown) {
      if (static_cast<unsigned char>(c) < 0x20 ||
          static_cast<unsigned char>(c) >= 0x7F)
        c = '?';
    }
    line += " (" + shown + ")";
  }
  (void)offset;
  sink->Add(std::move(line));
}

bool IsBodyTextType(const std::string& type) {
  return type == "text/plain" || type == "text/html" ||
         type == "text/enriched" || type == "text/richtext";
}

// Counts base64 alphabet characters in the still-encoded content; a count that
// is not a multiple of four (padding included) means the part was cut short.
bool LooksTruncatedBase64(GMimeDataWrapper* wrapper) {
  GMimeStream* raw = g_mime_data_wrapper_get_stream(wrapper);  // borrowed
  if (raw == nullptr) return false;
  g_mime_stream_reset(raw);
  char buf[8192];
  std::uint64_t count = 0;
  ssize_t n;
  while ((n = g_mime_stream_read(raw, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; ++i) {
      const unsigned char c = static_cast<unsigned char>(buf[i]);
      if (std::isalnum(c) || c == '+' || c == '/' || c == '=') ++count;
    }
  }
  g_mime_stream_reset(raw);
  return count % 4 != 0;
}

std::string Decode(GMimeDataWrapper* wrapper) {
  auto mem = Adopt(g_mime_stream_mem_new());
  if (g_mime_data_wrapper_write_to_stream(wrapper, mem.get()) < 0) return {};
  GByteArray* array =
      g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(mem.get()));
  if (array == nullptr || array->len == 0) return {};
  return std::string(reinterpret_cast<const char*>(array->data), array->len);
}

std::string ChildPath(const std::string& parent, int index) {
  const std::string n = std::to_string(index + 1);
  return parent.empty() ? n : parent + "." + n;
}

// What a subtree contributed: its leaf parts and its text.
struct Extract {
  std::vector<Part> parts;
  std::string text;

  void AppendText(std::string_view t) {
    if (t.empty()) return;
    if (!text.empty()) text += "\n\n";
    text.append(t);
  }
};

class Walker {
 public:
  Walker(const Limits& limits, std::vector<std::string>& warnings)
      : limits_(limits), warnings_(warnings) {}

  bool truncated() const { return truncated_; }

  // `path` is this object's position; empty for the root multipart.
  void Walk(GMimeObject* obj, std::uint32_t depth, const std::string& path,
            Extract& out) {
    if (obj == nullptr) return;
    if (depth > limits_.nesting_limit) {
      LimitOnce(depth_warned_, "limit: MIME parts nested deeper than " +
                                   std::to_string(limits_.nesting_limit) +
                                   " skipped (mime.nesting_limit)");
      return;
    }
    if (limits_.budget.Exceeded()) {
      // The work budget covers the whole message: what was extracted so far
      // is kept, the rest is not visited.
      LimitOnce(budget_warned_,
                "budget: parts after the first " + std::to_string(parts_seen_) +
                    " skipped (pipeline.max_cpu or max_wall spent)");
      truncated_ = true;
      return;
    }
    if (++parts_seen_ > limits_.max_parts) {
      LimitOnce(parts_warned_, "limit: parts after the first " +
                                   std::to_string(limits_.max_parts) +
                                   " skipped (mime.max_parts)");
      return;
    }
    if (GMIME_IS_MULTIPART(obj)) {
      WalkMultipart(GMIME_MULTIPART(obj), depth, path, out);
    } else if (GMIME_IS_MESSAGE_PART(obj)) {
      GMimeMessage* inner =
          g_mime_message_part_get_message(GMIME_MESSAGE_PART(obj));
      if (inner == nullptr) return;
      GMimeObject* body = g_mime_message_get_mime_part(inner);
      const std::string base = path.empty() ? "1" : path;
      Walk(body, depth + 1, GMIME_IS_MULTIPART(body) ? base : base + ".1", out);
    } else if (GMIME_IS_PART(obj)) {
      WalkLeaf(GMIME_PART(obj), depth, path.empty() ? "1" : path, out);
    }
  }

 private:
  void WalkMultipart(GMimeMultipart* mp, std::uint32_t depth,
                     const std::string& path, Extract& out) {
    const int count = g_mime_multipart_get_count(mp);
    if (count == 0) {
      // A boundary that never matches (spam often declares one and uses
      // another) leaves the whole body in the prologue. Mail clients still show
      // it; read it as plain text so its words are not invisible to the filters
      // downstream.
      const char* prologue = g_mime_multipart_get_prologue(mp);
      if (prologue != nullptr && *prologue != '\0') {
        Warn("part " + (path.empty() ? std::string("1") : path) +
             ": multipart without parts; its content read as plain text");
        AppendLooseText(prologue, path.empty() ? "1" : path, depth, out);
      }
      return;
    }
    GMimeContentType* ct = g_mime_object_get_content_type(GMIME_OBJECT(mp));
    const char* sub =
        ct != nullptr ? g_mime_content_type_get_media_subtype(ct) : nullptr;
    const bool alternative =
        sub != nullptr && g_ascii_strcasecmp(sub, "alternative") == 0;
    if (!alternative) {
      for (int i = 0; i < count; ++i) {
        Walk(g_mime_multipart_get_part(mp, i), depth + 1, ChildPath(path, i),
             out);
      }
      return;
    }
    // multipart/alternative: walk every child for the part summary, keep one
    // text so the same content is not counted twice.
    const std::uint64_t budget_before = text_bytes_;
    std::vector<Extract> children(static_cast<std::size_t>(std::max(count, 0)));
    for (int i = 0; i < count; ++i) {
      Walk(g_mime_multipart_get_part(mp, i), depth + 1, ChildPath(path, i),
           children[i]);
    }
    const std::size_t chosen = ChooseAlternative(children);
    for (std::size_t i = 0; i < children.size(); ++i) {
      for (Part& p : children[i].parts) {
        if (i != chosen) p.used_for_text = false;
        out.parts.push_back(std::move(p));
      }
    }
    text_bytes_ = budget_before;
    if (chosen < children.size()) {
      text_bytes_ += children[chosen].text.size();
      out.AppendText(children[chosen].text);
    }
  }

  // text/plain when present and non-trivial, else the richest other
  // alternative. The plain part is trivial when it covers less than half of the
  // other's distinct words: that is the "view this mail in an HTML client"
  // placeholder, or spam that shows the reader an HTML body and hides different
  // text in the plain part. Mail clients display the HTML then, and the filters
  // should read what the recipient reads.
  static std::size_t ChooseAlternative(const std::vector<Extract>& children) {
    std::size_t plain = children.size();
    std::size_t richest = children.size();
    for (std::size_t i = 0; i < children.size(); ++i) {
      if (children[i].text.empty()) continue;
      const bool is_plain =
          !children[i].parts.empty() &&
          children[i].parts.front().content_type == "text/plain";
      if (is_plain && plain == children.size()) plain = i;
      if (richest == children.size() ||
          children[i].text.size() > children[richest].text.size()) {
        richest = i;
      }
    }
    if (plain == children.size()) return richest;
    if (richest != plain &&
        WordCoverage(children[plain].text, children[richest].text) < 0.5) {
      return richest;
    }
    return plain;
  }

  // Share of the distinct words of `other` that also occur in `text`. Words are
  // runs of ASCII letters and digits or of non-ASCII bytes, compared without
  // ASCII case.
  static double WordCoverage(std::string_view text, std::string_view other) {
    auto words = [](std::string_view s) {
      std::vector<std::string> out;
      std::string cur;
      for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c) || c >= 0x80) {
          cur.push_back(internal::AsciiLower(ch));
        } else if (!cur.empty()) {
          out.push_back(std::move(cur));
          cur.clear();
        }
      }
      if (!cur.empty()) out.push_back(std::move(cur));
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
      return out;
    };
    const std::vector<std::string> mine = words(text);
    const std::vector<std::string> theirs = words(other);
    if (theirs.empty()) return 1.0;
    std::size_t shared = 0;
    for (const auto& w : theirs) {
      if (std::binary_search(mine.begin(), mine.end(), w)) ++shared;
    }
    return static_cast<double>(shared) / static_cast<double>(theirs.size());
  }

  void WalkLeaf(GMimePart* part, std::uint32_t depth, const std::string& path,
                Extract& out) {
    GMimeObject* obj = GMIME_OBJECT(part);
    Part info;
    info.path = path;
    info.depth = depth;
    GMimeContentType* ct = g_mime_object_get_content_type(obj);
    if (ct != nullptr) {
      const char* type = g_mime_content_type_get_media_type(ct);
      const char* sub = g_mime_content_type_get_media_subtype(ct);
      info.content_type = internal::AsciiLower(
          std::string(type ? type : "text") + "/" + (sub ? sub : "plain"));
      const char* cs = g_mime_content_type_get_parameter(ct, "charset");
      if (cs != nullptr) info.declared_charset = internal::AsciiLower(cs);
    } else {
      info.content_type = "text/plain";
    }
    // DEFAULT (no header) has no name and means 7bit (RFC 2045 6.1).
    const char* cte = g_mime_content_encoding_to_string(
        g_mime_part_get_content_encoding(part));
    info.transfer_encoding =
        cte != nullptr ? internal::AsciiLower(cte) : "7bit";
    if (const char* name = g_mime_part_get_filename(part)) info.filename = name;
    const char* disposition = g_mime_object_get_disposition(obj);
    const bool disposed_attachment =
        disposition != nullptr &&
        g_ascii_strcasecmp(disposition, "attachment") == 0;
    info.attachment = disposed_attachment || !IsBodyTextType(info.content_type);

    GMimeDataWrapper* wrapper =
        g_mime_part_get_content(part);  // borrowed; null when empty
    std::string data = wrapper != nullptr ? Decode(wrapper) : std::string();
    info.size = data.size();
    if (wrapper != nullptr &&
        g_mime_part_get_content_encoding(part) ==
            GMIME_CONTENT_ENCODING_BASE64 &&
        LooksTruncatedBase64(wrapper)) {
      Warn("part " + path + ": base64 content is truncated or malformed");
    }

    if (info.attachment) {
      info.sha1 = Sha1Hex(data);
      out.parts.push_back(std::move(info));
      return;
    }

    Decoded decoded = DecodeToUtf8(data, info.declared_charset);
    info.charset_used = decoded.charset_used;
    if (!decoded.note.empty())
      Warn("part " + path + ": charset: " + decoded.note);
    if (decoded.replaced > 0) {
      Warn("part " + path + ": " + std::to_string(decoded.replaced) +
           " invalid byte sequence" + (decoded.replaced == 1 ? "" : "s") +
           " in " + decoded.charset_used + " replaced with U+FFFD");
    }
    std::string text;
    if (info.content_type == "text/html") {
      HtmlText html =
          HtmlToText(decoded.utf8, limits_.html_nesting_limit, limits_.budget);
      if (html.nesting_limit_hit) {
        LimitOnce(html_warned_, "limit: HTML elements nested deeper than " +
                                    std::to_string(limits_.html_nesting_limit) +
                                    " skipped (mime.html_nesting_limit)");
      }
      if (html.input_truncated) {
        Warn("part " + path +
             ": HTML too large or too costly to lay out in full; text of "
             "its beginning kept");
        truncated_ = true;
      }
      text = std::move(html.text);
    } else {
      text = std::move(decoded.utf8);
    }
    std::vector<Part> files = CutUuBlocks(text, info);

    TakeBudget(text);
    info.used_for_text = !text.empty();
    out.parts.push_back(std::move(info));
    for (Part& file : files) out.parts.push_back(std::move(file));
    out.AppendText(text);
  }

  // Removes the inline uuencoded files from the plain text of part `host` and
  // returns them as attachments, with paths "<host>.uu1", "<host>.uu2", ...
  std::vector<Part> CutUuBlocks(std::string& text, const Part& host) {
    std::vector<Part> files;
    if (text.find("begin ") == std::string::npos) return files;
    const std::vector<UuBlock> blocks = FindUuBlocks(text);
    if (blocks.empty()) return files;
    std::string kept;
    std::size_t from = 0;
    for (const UuBlock& block : blocks) {
      kept.append(text, from, block.begin - from);
      from = block.end;
      Part file;
      file.path = host.path + ".uu" + std::to_string(files.size() + 1);
      file.depth = host.depth + 1;
      file.content_type = "application/octet-stream";
      file.transfer_encoding = "uuencode";
      file.size = block.data.size();
      file.filename = block.filename;
      file.sha1 = Sha1Hex(block.data);
      file.attachment = true;
      if (!block.complete) {
        Warn("part " + file.path + ": inline uuencoded file is truncated");
      }
      files.push_back(std::move(file));
    }
    kept.append(text, from, std::string::npos);
    text = std::move(kept);
    return files;
  }

  // Text that GMime left outside any part, decoded with charset detection.
  void AppendLooseText(std::string_view raw, const std::string& path,
                       std::uint32_t depth, Extract& out) {
    Part info;
    info.path = path;
    info.depth = depth;
    info.content_type = "text/plain";
    info.transfer_encoding = "8bit";
    info.size = raw.size();
    Decoded decoded = DecodeToUtf8(raw, "");
    info.charset_used = decoded.charset_used;
    std::string text = std::move(decoded.utf8);
    std::vector<Part> files = CutUuBlocks(text, info);
    TakeBudget(text);
    info.used_for_text = !text.empty();
    out.parts.push_back(std::move(info));
    for (Part& file : files) out.parts.push_back(std::move(file));
    out.AppendText(text);
  }

  // Cuts `text` to what is left of mime.max_text_bytes and charges it.
  void TakeBudget(std::string& text) {
    if (text_bytes_ >= limits_.max_text_bytes) {
      if (!text.empty()) {
        LimitOnce(text_warned_, "limit: text beyond " +
                                    std::to_string(limits_.max_text_bytes) +
                                    " bytes dropped (mime.max_text_bytes)");
      }
      text.clear();
    } else if (text_bytes_ + text.size() > limits_.max_text_bytes) {
      CutUtf8(text, limits_.max_text_bytes - text_bytes_);
      LimitOnce(text_warned_, "limit: text beyond " +
                                  std::to_string(limits_.max_text_bytes) +
                                  " bytes dropped (mime.max_text_bytes)");
    }
    text_bytes_ += text.size();
  }

  void Warn(std::string line) {
    if (warnings_.size() < kMaxWarnings) warnings_.push_back(std::move(line));
  }

  void LimitOnce(bool& flag, std::string line) {
    truncated_ = true;
    if (flag) return;
    flag = true;
    Warn(std::move(line));
  }

  const Limits& limits_;
  std::vector<std::string>& warnings_;
  std::uint32_t parts_seen_ = 0;
  bool budget_warned_ = false;
  std::uint64_t text_bytes_ = 0;
  bool truncated_ = false;
  bool depth_warned_ = false;
  bool parts_warned_ = false;
  bool text_warned_ = false;
  bool html_warned_ = false;
};

// Text that GMime cannot read as a message at all (no header block): keep it as
// plain text.
// The value of header `name` as GMime decodes it, cut at the header size
// limit; empty when absent.
std::string HeaderText(GMimeMessage* message, const char* name,
                       const Limits& limits) {
  const char* v =
      g_mime_object_get_header(GMIME_OBJECT(message), name);  // borrowed
  if (v == nullptr) return {};
  std::string out(v, strnlen(v, limits.header_size_limit));
  CutUtf8(out, limits.header_size_limit);
  return DecodeToUtf8(out, "utf-8").utf8;
}

// Removes surrounding white space and one pair of angle brackets.
void TrimAngles(std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  const auto e = s.find_last_not_of(" \t\r\n");
  s = b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  if (s.size() >= 2 && s.front() == '<' && s.back() == '>')
    s = s.substr(1, s.size() - 2);
}

// The first mailbox address in `list` (borrowed), "" when there is none.
std::string FirstAddress(InternetAddressList* list, const Limits& limits) {
  if (list == nullptr) return {};
  const int n = internet_address_list_length(list);
  for (int i = 0; i < n; ++i) {
    InternetAddress* a = internet_address_list_get_address(list, i);
    if (!INTERNET_ADDRESS_IS_MAILBOX(a)) continue;
    const char* addr =
        internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(a));
    if (addr == nullptr) continue;
    std::string out(addr, strnlen(addr, limits.header_size_limit));
    CutUtf8(out, limits.header_size_limit);
    return DecodeToUtf8(out, "utf-8").utf8;
  }
  return {};
}

void ParseAsPlainText(std::string_view data, const Limits& limits,
                      Message& msg) {
  Decoded decoded = DecodeToUtf8(data, "");
  std::string text = std::move(decoded.utf8);
  if (text.size() > limits.max_text_bytes) {
    CutUtf8(text, limits.max_text_bytes);
    msg.truncated = true;
    msg.warnings.push_back("limit: text beyond " +
                           std::to_string(limits.max_text_bytes) +
                           " bytes dropped (mime.max_text_bytes)");
  }
  Part p;
  p.path = "1";
  p.content_type = "text/plain";
  p.charset_used = decoded.charset_used;
  p.transfer_encoding = "8bit";
  p.size = data.size();
  p.used_for_text = !text.empty();
  msg.parts.push_back(std::move(p));
  msg.body = std::move(text);
}

// GObject creates a class the first time an instance of its type is made,
// under GLib locks that ThreadSanitizer cannot see (futexes, not pthread
// mutexes), and the type checks inlined into Parse then read the class
// pointer with no synchronisation it knows of. Creating every class a parse
// can make here, on the thread that calls Init before any other starts,
// leaves the worker threads only reading them; it also moves the one-time
// cost off the first message.
void MakeClasses() {
  const GType types[] = {
      GMIME_TYPE_OBJECT,
      GMIME_TYPE_PART,
      GMIME_TYPE_TEXT_PART,
      GMIME_TYPE_MULTIPART,
      GMIME_TYPE_MULTIPART_SIGNED,
      GMIME_TYPE_MULTIPART_ENCRYPTED,
      GMIME_TYPE_MESSAGE,
      GMIME_TYPE_MESSAGE_PART,
      GMIME_TYPE_MESSAGE_PARTIAL,
      GMIME_TYPE_APPLICATION_PKCS7_MIME,
      GMIME_TYPE_PARSER,
      GMIME_TYPE_STREAM_MEM,
      GMIME_TYPE_STREAM_FILTER,
      GMIME_TYPE_STREAM_NULL,
      GMIME_TYPE_DATA_WRAPPER,
      GMIME_TYPE_CONTENT_TYPE,
      GMIME_TYPE_CONTENT_DISPOSITION,
      GMIME_TYPE_PARAM_LIST,
      GMIME_TYPE_PARAM,
      GMIME_TYPE_HEADER_LIST,
      GMIME_TYPE_HEADER,
      INTERNET_ADDRESS_LIST_TYPE,
      INTERNET_ADDRESS_TYPE_MAILBOX,
      INTERNET_ADDRESS_TYPE_GROUP,
      GMIME_TYPE_FILTER_BASIC,
      GMIME_TYPE_FILTER_CHARSET,
      GMIME_TYPE_FILTER_BEST,
      GMIME_TYPE_FILTER_DOS2UNIX,
  };
  // Kept referenced for the life of the process: static types are never
  // finalised anyway.
  for (GType t : types) g_type_class_ref(t);
}

Result<Message> ParseBytes(std::string_view bytes, const Limits& limits);

}  // namespace

void Init() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_mime_init();
    MakeClasses();
    // One parse of a message with every kind of part Walk handles, so the
    // lazily made state behind them (charset tables, iconv caches, the
    // parser's own) exists before the threads do.
    static constexpr char kWarmUp[] =
        "From: a <a@example.org>\r\n"
        "To: b@example.org, c@example.org\r\n"
        "Subject: =?iso-8859-1?q?warm_up?=\r\n"
        "MIME-Version: 1.0\r\n"
        "Content-Type: multipart/mixed; boundary=b1\r\n\r\n"
        "--b1\r\nContent-Type: text/plain; charset=iso-8859-1\r\n"
        "Content-Transfer-Encoding: quoted-printable\r\n\r\nd=E9j=E0\r\n"
        "--b1\r\nContent-Type: text/html; charset=utf-8\r\n"
        "Content-Transfer-Encoding: base64\r\n\r\nPHA+aGk8L3A+\r\n"
        "--b1\r\nContent-Type: message/rfc822\r\n\r\n"
        "Subject: inner\r\n\r\ninner\r\n"
        "--b1--\r\n";
    (void)ParseBytes(kWarmUp, Limits{});
  });
}

Result<Message> Parse(std::string_view bytes, const Limits& limits) {
  Init();  // cheap after the first call; makes library users safe even if main
           // forgot
  return ParseBytes(bytes, limits);
}

namespace {

Result<Message> ParseBytes(std::string_view bytes, const Limits& limits) {
  if (bytes.empty()) return Fail(Error::InvalidArgument("empty message"));
  Message msg;
  std::string_view data = bytes;
  // An mbox "From " separator line is not a header; GMime would reject the
  // header block.
  if (data.substr(0, 5) == "From ") {
    const auto eol = data.find('\n');
    data.remove_prefix(eol == std::string_view::npos ? data.size() : eol + 1);
  }
  if (data.size() > limits.max_bytes) {
    data = data.substr(0, limits.max_bytes);
    msg.truncated = true;
    msg.warnings.push_back("limit: message is " + std::to_string(bytes.size()) +
                           " bytes, analysed the first " +
                           std::to_string(limits.max_bytes) +
                           " (mime.max_bytes)");
  }
  if (data.empty())
    return Fail(Error::InvalidArgument("message has no content"));

  WarningSink sink;
  std::unique_ptr<GMimeParserOptions, OptionsFree> options(
      g_mime_parser_options_new());
  if (limits.parser_warnings) {
    g_mime_parser_options_set_warning_callback(options.get(), OnParserWarning,
                                               &sink);
  }
  // Loose modes accept what real mailers send (unencoded 8-bit, broken encoded
  // words); the fallback charsets decode raw 8-bit headers the way most mail
  // clients do.
  g_mime_parser_options_set_rfc2047_compliance_mode(options.get(),
                                                    GMIME_RFC_COMPLIANCE_LOOSE);
  g_mime_parser_options_set_parameter_compliance_mode(
      options.get(), GMIME_RFC_COMPLIANCE_LOOSE);
  g_mime_parser_options_set_address_compliance_mode(options.get(),
                                                    GMIME_RFC_COMPLIANCE_LOOSE);
  const char* fallback[] = {"utf-8", "windows-1252", nullptr};
  g_mime_parser_options_set_fallback_charsets(options.get(), fallback);

  // GMime copies the buffer into the stream, so `bytes` need not outlive this
  // call.
  auto stream =
      Adopt(g_mime_stream_mem_new_with_buffer(data.data(), data.size()));
  auto parser = Adopt(g_mime_parser_new_with_stream(stream.get()));
  g_mime_parser_set_format(parser.get(), GMIME_FORMAT_MESSAGE);
  auto message =
      Adopt(g_mime_parser_construct_message(parser.get(), options.get()));

  for (auto& w : sink.lines) msg.warnings.push_back(std::move(w));
  if (sink.dropped > 0) {
    msg.warnings.push_back("parser: " + std::to_string(sink.dropped) +
                           " more warnings");
  }
  if (sink.truncated) msg.truncated = true;

  if (!message) {
    msg.warnings.push_back(
        "parser: no RFC 822 header block; read as plain text");
    ParseAsPlainText(data, limits, msg);
    return msg;
  }

  if (const char* subject = g_mime_message_get_subject(message.get())) {
    msg.subject = subject;
    if (msg.subject.size() > limits.header_size_limit) {
      CutUtf8(msg.subject, limits.header_size_limit);
      msg.warnings.push_back("limit: Subject cut to " +
                             std::to_string(limits.header_size_limit) +
                             " bytes (mime.header_size_limit)");
    }
    // GMime decodes encoded words to UTF-8 but passes undecodable raw bytes
    // through.
    msg.subject = DecodeToUtf8(msg.subject, "utf-8").utf8;
  }

  msg.message_id = HeaderText(message.get(), "Message-ID", limits);
  TrimAngles(msg.message_id);
  msg.from = FirstAddress(g_mime_message_get_from(message.get()), limits);
  msg.return_path = HeaderText(message.get(), "Return-Path", limits);
  TrimAngles(msg.return_path);

  GMimeObject* body = g_mime_message_get_mime_part(message.get());  // borrowed
  if (body == nullptr) {
    msg.warnings.push_back("parser: message has no body");
    return msg;
  }
  Walker walker(limits, msg.warnings);
  Extract extract;
  walker.Walk(body, 0, GMIME_IS_MULTIPART(body) ? "" : "1", extract);
  msg.parts = std::move(extract.parts);
  msg.body = std::move(extract.text);
  if (walker.truncated()) msg.truncated = true;
  if (msg.warnings.size() > kMaxWarnings) msg.warnings.resize(kMaxWarnings);
  return msg;
}

}  // namespace

Result<Message> Parse(std::span<const std::byte> bytes, const Limits& limits) {
  return Parse(std::string_view(reinterpret_cast<const char*>(bytes.data()),
                                bytes.size()),
               limits);
}

}  // namespace mw::mime
