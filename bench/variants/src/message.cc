// MIME builders: encodings, whole messages, legacy charsets, HTML
// (variants.h).
#include "mime/message.h"

#include <unicode/ucnv.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "variants/variants.h"

namespace mw::variants {

std::string Base64(std::string_view in) {
  static constexpr char kB64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t col = 0;
  for (std::size_t i = 0; i < in.size(); i += 3) {
    std::uint32_t v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) v |= static_cast<unsigned char>(in[i + 2]);
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kB64[(v >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kB64[v & 63] : '=';
    if ((col += 4) >= 76) {
      out += '\n';
      col = 0;
    }
  }
  return out + "\n";
}

std::string QuotedPrintable(std::string_view in) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  std::size_t col = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c == '\n') {
      out += '\n';
      col = 0;
      continue;
    }
    std::string enc;
    const bool trailing_space =
        (c == ' ' || c == '\t') && (i + 1 == in.size() || in[i + 1] == '\n');
    if (c == '=' || c > 126 || (c < 32 && c != '\t') || trailing_space) {
      enc = {'=', kHex[c >> 4], kHex[c & 15]};
    } else {
      enc = std::string(1, static_cast<char>(c));
    }
    if (col + enc.size() > 75) {
      out += "=\n";
      col = 0;
    }
    out += enc;
    col += enc.size();
  }
  return out + "\n";
}

std::string Message(std::string_view content_type, std::string_view cte,
                    std::string_view body, const Headers& headers) {
  std::string m;
  if (!headers.return_path.empty()) {
    m += "Return-Path: " + headers.return_path + "\n";
  }
  m += "From: " + headers.from + "\nTo: " + headers.to +
       "\nSubject: " + headers.subject + "\nDate: " + headers.date +
       "\nMessage-ID: " + headers.message_id +
       "\nMIME-Version: 1.0\nContent-Type: ";
  m += content_type;
  m += "\nContent-Transfer-Encoding: ";
  m += cte;
  m += "\n\n";
  m += body;
  return m;
}

std::string BuildMessage(std::string_view decoded, const Headers& headers) {
  return Message("text/plain; charset=utf-8", "quoted-printable",
                 QuotedPrintable(decoded), headers);
}

namespace {

// Converts UTF-8 to `charset` with ICU; false when a character has no mapping
// there.
bool Convert(const std::string& utf8, const char* charset, std::string& out) {
  UErrorCode status = U_ZERO_ERROR;
  out.assign(utf8.size() * 4 + 16, '\0');
  const int32_t n = ucnv_convert(charset, "UTF-8", out.data(),
                                 static_cast<int32_t>(out.size()), utf8.data(),
                                 static_cast<int32_t>(utf8.size()), &status);
  if (U_FAILURE(status)) return false;
  out.resize(static_cast<std::size_t>(n));
  std::string back(out.size() * 4 + 16, '\0');
  const int32_t m =
      ucnv_convert("UTF-8", charset, back.data(),
                   static_cast<int32_t>(back.size()), out.data(), n, &status);
  return U_SUCCESS(status) &&
         back.compare(0, static_cast<std::size_t>(m), utf8) == 0 &&
         static_cast<std::size_t>(m) == utf8.size();
}

}  // namespace

std::pair<std::string, std::string> ToLegacy(const std::string& utf8) {
  static constexpr const char* kCharsets[] = {
      "windows-1252", "iso-8859-2", "windows-1251", "koi8-r", "iso-8859-7",
      "shift_jis",    "euc-kr",     "gb2312",       "big5"};
  std::string out;
  for (const char* c : kCharsets) {
    if (Convert(utf8, c, out)) return {c, out};
  }
  Convert(utf8, "gb18030", out);
  return {"gb18030", out};
}

std::string Html(const std::string& decoded) {
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta "
      "charset=\"utf-8\"><style>p{margin:0}</style></head>\n"
      "<body><div style=\"font-family:Arial\">\n<p>";
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    const char c = decoded[i];
    if (c == '\n') {
      if (i + 1 < decoded.size() && decoded[i + 1] == '\n') {
        out += "</p>\n<p>";
        while (i + 1 < decoded.size() && decoded[i + 1] == '\n') ++i;
      } else {
        out += "<br>\n";
      }
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  out += "</p>\n</div></body></html>\n";
  return out;
}

std::string Extract(const std::string& message) {
  auto m = mime::Parse(std::string_view(message), mime::Limits{});
  return m ? m->body : std::string();
}

}  // namespace mw::variants
