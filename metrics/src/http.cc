#include "http.h"

#include <algorithm>

namespace mw::metrics::internal {

namespace {

constexpr std::string_view kContentType =
    "text/plain; version=0.0.4; charset=utf-8";

std::string Response(std::string_view status, std::string_view body,
                     bool send_body, std::string_view extra_header = {}) {
  std::string out = "HTTP/1.1 ";
  out += status;
  out += "\r\nContent-Type: ";
  // Errors are plain text for people; only the 200 is the exposition format.
  out += status.starts_with("200")
             ? kContentType
             : std::string_view("text/plain; charset=utf-8");
  out += "\r\nContent-Length: ";
  out += std::to_string(body.size());
  out += "\r\nConnection: close\r\n";
  out += extra_header;
  out += "\r\n";
  if (send_body) out += body;
  return out;
}

}  // namespace

std::size_t HeadLength(std::string_view data) {
  const std::size_t crlf = data.find("\r\n\r\n");
  const std::size_t lf = data.find("\n\n");
  const std::size_t crlf_end =
      crlf == std::string_view::npos ? std::string_view::npos : crlf + 4;
  const std::size_t lf_end =
      lf == std::string_view::npos ? std::string_view::npos : lf + 2;
  const std::size_t end = std::min(crlf_end, lf_end);
  return end == std::string_view::npos ? 0 : end;
}

std::string Answer(std::string_view head,
                   const std::function<std::string()>& body) {
  const std::size_t eol = head.find('\n');
  std::string_view line = head.substr(0, eol);
  if (line.ends_with('\r')) line.remove_suffix(1);
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 =
      sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == 0 || sp2 == std::string_view::npos || sp2 == sp1 + 1 ||
      line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Response("400 Bad Request", "bad request line\n", true);
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (version != "HTTP/1.0" && version != "HTTP/1.1")
    return Response("400 Bad Request", "HTTP/1.0 or HTTP/1.1 only\n", true);
  const bool head_only = method == "HEAD";
  if (method != "GET" && !head_only) {
    return Response("405 Method Not Allowed", "GET only\n", true,
                    "Allow: GET, HEAD\r\n");
  }
  // The query string is ignored: Prometheus may add ?name[]= selectors,
  // and the whole registry is small.
  const std::string_view path = target.substr(0, target.find('?'));
  if (path != "/metrics")
    return Response("404 Not Found", "try /metrics\n", !head_only);
  const std::string text = body();
  return Response("200 OK", text, !head_only);
}

std::string TooLarge() {
  return Response("431 Request Header Fields Too Large",
                  "request head too large\n", true);
}

}  // namespace mw::metrics::internal
