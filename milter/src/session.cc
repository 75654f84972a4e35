#include "session.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <strings.h>

#include <algorithm>
#include <cstring>

#include "mw/header_names.h"

namespace mw::milter {

namespace {

bool EqualNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           const auto lower = [](char c) {
             return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a')
                                           : c;
           };
           return lower(x) == lower(y);
         });
}

}  // namespace

bool IsOurs(std::string_view name) {
  return name.size() >= kHeaderPrefix.size() &&
         EqualNoCase(name.substr(0, kHeaderPrefix.size()), kHeaderPrefix);
}

void Session::Append(std::string_view data) {
  size_ += data.size();
  if (too_large_) return;
  if (bytes_.size() + data.size() > max_bytes_) {
    bytes_.append(data.substr(0, max_bytes_ - bytes_.size()));
    too_large_ = true;
    return;
  }
  bytes_.append(data);
}

void Session::AddHeader(std::string_view name, std::string_view value) {
  if (IsOurs(name)) {
    auto it = std::find_if(ours_.begin(), ours_.end(), [&](const Ours& o) {
      return EqualNoCase(o.name, name);
    });
    if (it == ours_.end()) {
      ours_.push_back({std::string(name), 1});
    } else {
      ++it->count;
    }
  }
  // Postfix sends folded lines joined by a bare LF; the rebuilt message uses
  // CRLF throughout, as the body chunks do.
  std::string line(name);
  line += ": ";
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\n' && (i == 0 || value[i - 1] != '\r')) line += '\r';
    line += value[i];
  }
  line += "\r\n";
  Append(line);
}

std::vector<Session::Deletion> Session::Deletions() const {
  std::vector<Deletion> out;
  for (const auto& h : ours_) {
    for (int i = h.count; i >= 1; --i) out.push_back({h.name, i});
  }
  return out;
}

void Session::EndHeaders() {
  if (body_started_) return;
  body_started_ = true;
  Append("\r\n");
}

void Session::AddBody(std::string_view chunk) {
  EndHeaders();
  Append(chunk);
}

void Session::set_client(const sockaddr* addr, socklen_t len) {
  has_client_ = addr != nullptr && len > 0 && len <= sizeof client_;
  if (has_client_) std::memcpy(&client_, addr, len);
}

std::string Session::ClientIp() const {
  char text[INET6_ADDRSTRLEN] = {};
  const void* where = nullptr;
  if (!has_client_) return {};
  if (client_.ss_family == AF_INET) {
    where = &reinterpret_cast<const sockaddr_in*>(&client_)->sin_addr;
  } else if (client_.ss_family == AF_INET6) {
    where = &reinterpret_cast<const sockaddr_in6*>(&client_)->sin6_addr;
  } else {
    return {};
  }
  if (inet_ntop(client_.ss_family, where, text, sizeof text) == nullptr)
    return {};
  return text;
}

void Session::Reset() {
  queue_id_.clear();
  sender_.clear();
  recipients_.clear();
  bytes_.clear();
  bytes_.shrink_to_fit();
  too_large_ = false;
  body_started_ = false;
  size_ = 0;
  ours_.clear();
  failure_.clear();
}

}  // namespace mw::milter
