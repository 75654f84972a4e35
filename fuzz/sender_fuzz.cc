// libFuzzer target for the sender identity path (sender/): the bytes as a
// raw message (ReadHeader, ParseAuthResults on every field, Identify with a
// trusted authserv-id and the suffix list) and as an allow file
// (AllowList::Parse, then Match against the identity). Beyond "no crash, no
// sanitizer report, bounded time", it checks:
//   - fields have a name without ':' or white space and no line break in
//     their value; parsed results have a lower-case method and result;
//   - Key() is "a:" exactly when authenticated (kDkim/kSpf), "u:" for
//     kEnvelope, "" for kNone; an authenticated identity rests on a trusted
//     pass it recorded;
//   - a parsed allow list has lines in increasing order, one CIDR per ip
//     entry (Match reaches them all), and an error names the file.
// Seed corpus: tests/fixtures/sender (scripts/test).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sender/address.h"
#include "sender/allow.h"
#include "sender/auth_results.h"
#include "sender/header_fields.h"
#include "sender/identity.h"

namespace {

namespace s = mw::sender;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

bool IsLower(std::string_view v) {
  for (char c : v) {
    if (c >= 'A' && c <= 'Z') return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  static const std::shared_ptr<const s::SuffixList> suffixes = [] {
    auto l = s::SuffixList::Open();
    return l ? *l : nullptr;
  }();
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  const std::vector<s::Field> header = s::ReadHeader(input, 200);
  Check(header.size() <= 200);
  for (const s::Field& f : header) {
    Check(!f.name.empty());
    Check(f.name.find_first_of(": \t\r\n") == std::string::npos);
    Check(f.value.find('\n') == std::string::npos);
    const auto ar = s::ParseAuthResults(f.value);
    if (!ar) continue;
    Check(!ar->authserv_id.empty());
    for (const s::AuthResult& r : ar->results) {
      Check(!r.method.empty() && IsLower(r.method));
      Check(!r.result.empty() && IsLower(r.result));
      for (const auto& [name, value] : r.properties) {
        Check(IsLower(name) && name.find('.') != std::string::npos);
        Check(r.Property(name).has_value());
      }
    }
  }

  // The envelope from the header itself, so the fuzzer steers it too.
  s::Envelope envelope;
  if (!header.empty()) envelope.sender = header.front().value;
  if (header.size() > 1) envelope.client_ip = header[1].value;
  s::Options options;
  options.trusted_authserv_ids = {"mx.example.net"};
  options.suffixes = suffixes.get();
  const s::Identity id = s::Identify(header, envelope, options);
  const std::string key = id.Key();
  Check(id.authenticated ==
        (id.source == s::Source::kDkim || id.source == s::Source::kSpf));
  Check((id.source == s::Source::kNone) == id.domain.empty());
  Check(key.empty() == (id.source == s::Source::kNone));
  Check(id.authenticated == key.starts_with("a:"));
  Check((id.source == s::Source::kEnvelope) == key.starts_with("u:"));
  if (id.source == s::Source::kDkim) Check(!id.dkim_domains.empty());
  if (id.source == s::Source::kSpf) Check(!id.spf_domain.empty());
  Check(IsLower(id.sender) && IsLower(id.list_id) && IsLower(id.from_domain));
  if (!id.network.empty()) Check(id.network.find('/') != std::string::npos);

  const auto list = s::AllowList::Parse(input, "fuzz.txt");
  if (!list) {
    Check(list.error().message().starts_with("fuzz.txt:"));
    return 0;
  }
  int line = 0;
  for (const s::AllowEntry& e : list->entries()) {
    Check(e.line > line);
    line = e.line;
    Check(!e.value.empty());
  }
  // An ip entry's own address is in its block: every CIDR is reached, in
  // step with the entries.
  s::Identity any = id;
  bool has_ip = false;
  for (const s::AllowEntry& e : list->entries()) {
    if (e.kind != s::AllowKind::kIp) continue;
    any.client_ip = e.value.substr(0, e.value.find('/'));
    has_ip = true;
  }
  if (has_ip) Check(list->Match(any, nullptr) != nullptr);
  (void)list->Match(id, suffixes.get());
  (void)list->MatchCluster(0xdeadbeef);
  return 0;
}
