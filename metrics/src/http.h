// The one HTTP exchange the metrics server knows: find the end of a request
// head, and answer it. Private to mw::metrics; pure functions.
#ifndef MW_METRICS_HTTP_H_
#define MW_METRICS_HTTP_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace mw::metrics::internal {

// The length of the request head in `data` including its blank line
// ("\r\n\r\n", or a bare "\n\n" from a lenient client); 0 when it has not
// all arrived.
std::size_t HeadLength(std::string_view data);

// The full response (status line, headers, body) to the request head
// `head`: 200 with `body()` for GET /metrics (HEAD: the same headers, no
// body), 404 another path, 405 another method, 400 a head whose request
// line is not "METHOD SP TARGET SP HTTP/1.x". `body` is called only for a
// 200.
std::string Answer(std::string_view head,
                   const std::function<std::string()>& body);

// The 431 response for a head past the size limit.
std::string TooLarge();

}  // namespace mw::metrics::internal

#endif  // MW_METRICS_HTTP_H_
