// Authentication-Results (RFC 8601) as values. Only the site's own results
// are worth anything; which those are is identity.h's business.
//
// Thread-safety: pure functions.
#ifndef MW_SENDER_AUTH_RESULTS_H_
#define MW_SENDER_AUTH_RESULTS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mw::sender {

struct AuthResult {
  std::string method;  // lower case: "dkim", "spf", "dmarc"
  std::string result;  // lower case: "pass", "fail", "none", ...
  // ptype.property = value, in order, ptype and property lower case
  // ("header.d" -> "example.com", "smtp.mailfrom" -> "bounce@example.com").
  std::vector<std::pair<std::string, std::string>> properties;

  // The first value of `name` ("header.d"); nullopt when absent.
  std::optional<std::string_view> Property(std::string_view name) const;
};

struct AuthResults {
  std::string authserv_id;          // as written (compared without case)
  std::vector<AuthResult> results;  // empty for "none"
};

// Parses one header value (CFWS comments, quoted strings, the optional
// version after the authserv-id, "none", reasons; unknown methods kept).
// nullopt when there is no authserv-id; a malformed resinfo ends the list
// (the results before it are kept).
std::optional<AuthResults> ParseAuthResults(std::string_view value);

}  // namespace mw::sender

#endif  // MW_SENDER_AUTH_RESULTS_H_
