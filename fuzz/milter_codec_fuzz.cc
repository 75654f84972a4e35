// libFuzzer target for the milter protocol codec (milter/include/milter/
// codec.h): the bytes as a stream from the MTA (or from a milter), fed to a
// Decoder in pieces whose sizes the first input bytes choose, through Feed
// or Prepare/Commit; every packet goes through Parse, ParseReply and each
// typed parser; and the bytes as text for the encoders. Beyond "no crash, no
// sanitizer report, bounded time", it checks:
//   - framing does not depend on how the stream is cut: the packets (and the
//     framing error, if any) are those of the whole stream fed at once, and
//     every frame's length stays within the cap;
//   - every view a parser returns lies inside the packet's data, and the
//     allocation caps (kMaxParams, kMaxMacros) hold;
//   - a parsed reply that our encoder also accepts encodes back to the same
//     bytes; the negotiation never requests what the MTA did not offer;
//   - whatever text an encoder accepts decodes back to one frame that
//     ParseReply reads as the same text (no text breaks the framing).
// Input: byte 0 picks the feeding (see below), bytes 1-3 seed the cut
// sizes, the rest is the stream. Seed corpus: tests/fixtures/milter (a
// Postfix session and a stream of our replies; scripts/test).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "milter/codec.h"

namespace {

namespace m = mw::milter;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

// An empty view may point anywhere (or nowhere); a non-empty one must lie
// inside `outer`.
bool Within(std::string_view inner, std::string_view outer) {
  if (inner.empty()) return true;
  return inner.data() >= outer.data() &&
         inner.data() + inner.size() <= outer.data() + outer.size();
}

struct Frame {
  char command;
  std::string data;
  bool operator==(const Frame&) const = default;
};

struct Decoded {
  std::vector<Frame> frames;
  std::optional<mw::Error::Code> error;
};

void Drain(m::Decoder& d, Decoded& out, std::size_t cap) {
  while (!out.error) {
    auto next = d.Next();
    if (!next) {
      out.error = next.error().code();
      Check(d.failed());
      return;
    }
    if (!*next) return;
    Check((*next)->data.size() + 1 <= cap);
    out.frames.push_back({(*next)->command, std::string((*next)->data)});
  }
}

Decoded DecodeWhole(std::string_view stream, std::size_t cap) {
  m::Decoder d(m::DecoderOptions{.max_packet = cap});
  Decoded out;
  d.Feed(stream);
  Drain(d, out, cap);
  return out;
}

// Pieces of 1..64 bytes (or up to 4 KiB when `large`), sizes from a
// xorshift seeded by `seed`; Feed or Prepare/Commit by `direct`.
Decoded DecodeInPieces(std::string_view stream, std::size_t cap,
                       std::uint32_t seed, bool direct, bool large) {
  m::Decoder d(m::DecoderOptions{.max_packet = cap});
  Decoded out;
  std::uint32_t x = seed | 1;
  while (!stream.empty()) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    const std::size_t n =
        std::min<std::size_t>(1 + x % (large ? 4096 : 64), stream.size());
    if (direct) {
      std::span<char> space = d.Prepare(n);
      Check(space.size() >= n);
      std::copy_n(stream.data(), n, space.data());
      d.Commit(n);
    } else {
      d.Feed(stream.substr(0, n));
    }
    stream.remove_prefix(n);
    Drain(d, out, cap);
  }
  Drain(d, out, cap);
  return out;
}

void CheckCommand(const m::Packet& p) {
  const std::string_view d = p.data;
  auto command = m::Parse(p);
  if (!command) return;
  std::visit(
      [&](const auto& c) {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, m::Connect>) {
          Check(Within(c.hostname, d) && Within(c.address, d));
          if (c.family == m::Family::kUnknown)
            Check(c.port == 0 && c.address.empty());
        } else if constexpr (std::is_same_v<T, m::Helo>) {
          Check(Within(c.name, d));
        } else if constexpr (std::is_same_v<T, m::Mail> ||
                             std::is_same_v<T, m::Rcpt>) {
          Check(Within(c.address, d) && c.params.size() <= m::kMaxParams);
          for (std::string_view param : c.params) Check(Within(param, d));
        } else if constexpr (std::is_same_v<T, m::Header>) {
          Check(!c.name.empty() && Within(c.name, d) && Within(c.value, d));
        } else if constexpr (std::is_same_v<T, m::Body> ||
                             std::is_same_v<T, m::EndOfBody>) {
          Check(c.chunk == d);
        } else if constexpr (std::is_same_v<T, m::Macros>) {
          Check(c.stage == d.front() && c.macros.size() <= m::kMaxMacros);
          for (const m::Macro& macro : c.macros)
            Check(Within(macro.name, d) && Within(macro.value, d));
        } else if constexpr (std::is_same_v<T, m::Unknown>) {
          Check(Within(c.command, d));
        } else if constexpr (std::is_same_v<T, m::OptNeg>) {
          // Whatever the MTA offers, we ask for no more than that.
          const m::Wants wants{.actions = 0xffffffff,
                               .skip = 0xffffffff,
                               .no_reply = 0xffffffff,
                               .extensions = 0xffffffff};
          auto n = m::Negotiate(c, wants);
          if (!n) {
            Check(c.version < m::kMinProtocolVersion);
            return;
          }
          const std::uint32_t offered =
              c.protocol ? c.protocol : m::smfip::kV1Protocol;
          const std::uint32_t actions =
              c.actions ? c.actions : m::smfif::kV1Actions;
          Check(n->reply.version <= m::kProtocolVersion &&
                n->reply.version <= c.version);
          Check((n->reply.protocol & ~offered) == 0);
          Check((n->reply.actions & ~actions) == 0);
          Check((n->reply.actions | n->missing_actions) == 0xffffffff);
        }
      },
      *command);
}

// A reply we can also write must come out as the same bytes.
void CheckReply(const m::Packet& p) {
  auto reply = m::ParseReply(p);
  if (!reply) return;
  std::string again;
  mw::Result<void> ok;
  if (const auto* o = std::get_if<m::OptNeg>(&*reply)) {
    m::AppendOptNeg(again, *o);
    Check(again.substr(5) == p.data.substr(0, 12));
    return;
  } else if (const auto* add = std::get_if<m::AddHeader>(&*reply)) {
    ok = m::AppendAddHeader(again, add->name, add->value);
  } else if (const auto* ins = std::get_if<m::InsertHeader>(&*reply)) {
    ok = m::AppendInsertHeader(again, ins->index, ins->name, ins->value);
  } else if (const auto* chg = std::get_if<m::ChangeHeader>(&*reply)) {
    ok = m::AppendChangeHeader(again, chg->index, chg->name, chg->value);
  } else if (const auto* q = std::get_if<m::Quarantine>(&*reply)) {
    ok = m::AppendQuarantine(again, q->reason);
  } else {
    return;
  }
  if (!ok) {
    Check(again.empty());  // a refusal leaves the buffer alone
    return;
  }
  Check(again.size() == p.data.size() + 5 && again[4] == p.command &&
        again.substr(5) == p.data);
}

// The one packet an encoder wrote, parsed back as a reply. The decoder must
// frame `out` as exactly one packet; the reply's views point into `out`
// (not into the decoder, which dies here).
m::Reply ReadBack(const std::string& out) {
  m::Decoder d;
  d.Feed(out);
  auto first = d.Next();
  Check(first && *first && (*first)->data.size() + 5 == out.size());
  auto rest = d.Next();
  Check(rest && !*rest && d.buffered() == 0);
  auto reply =
      m::ParseReply(m::Packet{out[4], std::string_view(out).substr(5)});
  Check(reply.has_value());
  return *reply;
}

// The input as text for the encoders: its first third a header name, the
// rest a value, the whole a quarantine reason (any bytes).
void CheckEncoders(std::string_view text) {
  const std::size_t cut = text.size() / 3;
  const std::string_view name = text.substr(0, cut);
  const std::string_view value = text.substr(cut);
  std::string out;
  if (m::AppendAddHeader(out, name, value)) {
    const auto r = ReadBack(out);
    const auto* add = std::get_if<m::AddHeader>(&r);
    Check(add && add->name == name && add->value == value);
  } else {
    Check(out.empty());
  }
  out.clear();
  if (m::AppendChangeHeader(out, 7, name, value)) {
    const auto r = ReadBack(out);
    const auto* chg = std::get_if<m::ChangeHeader>(&r);
    Check(chg && chg->index == 7 && chg->name == name && chg->value == value);
  }
  out.clear();
  if (m::AppendQuarantine(out, text)) {
    const auto r = ReadBack(out);
    const auto* q = std::get_if<m::Quarantine>(&r);
    Check(q && q->reason == text);
  }
  out.clear();
  if (m::AppendReplyCode(out, "550", "5.7.1", value)) {
    const auto r = ReadBack(out);
    const auto* code = std::get_if<m::ReplyCode>(&r);
    Check(code && code->text.substr(0, 9) == "550 5.7.1");
    // Undoubling the '%' gives the text back.
    std::string undoubled;
    const std::string_view sent =
        code->text.size() > 10 ? code->text.substr(10) : std::string_view();
    for (std::size_t i = 0; i < sent.size(); ++i) {
      undoubled.push_back(sent[i]);
      if (sent[i] == '%') {
        Check(i + 1 < sent.size() && sent[i + 1] == '%');
        ++i;
      }
    }
    Check(undoubled == value);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  if (size < 5) return 0;
  // Byte 0: how to cut and feed; bytes 1-3: the cut sizes' seed; a small cap
  // for half the inputs so that oversize frames are within reach.
  const std::uint8_t mode = data[0];
  const std::uint32_t seed =
      (std::uint32_t{data[1]} << 16) | (std::uint32_t{data[2]} << 8) | data[3];
  const std::size_t cap = (mode & 1) ? 1 + data[4] : m::kDefaultMaxPacket;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 4,
                                size - 4);

  const Decoded whole = DecodeWhole(stream, cap);
  const Decoded pieces =
      DecodeInPieces(stream, cap, seed, (mode & 2) != 0, (mode & 4) != 0);
  Check(pieces.frames == whole.frames && pieces.error == whole.error);

  for (const Frame& f : whole.frames) {
    const m::Packet p{f.command, f.data};
    CheckCommand(p);
    CheckReply(p);
    // The typed parsers on any data, whatever the command byte said.
    (void)m::ParseOptNeg(f.data);
    (void)m::ParseConnect(f.data);
    (void)m::ParseHelo(f.data);
    (void)m::ParseMail(f.data);
    (void)m::ParseRcpt(f.data);
    (void)m::ParseHeader(f.data);
    (void)m::ParseMacros(f.data);
    (void)m::ParseUnknown(f.data);
    // Re-framing the packet gives the same frame back.
    std::string again;
    Check(m::AppendPacket(again, f.command, f.data).has_value());
    Check(DecodeWhole(again, m::kDefaultMaxPacket).frames ==
          std::vector<Frame>{f});
  }
  // The raw bytes as one packet's data too: most inputs never frame.
  CheckCommand(m::Packet{static_cast<char>(mode), stream});
  CheckReply(m::Packet{static_cast<char>(mode), stream});
  CheckEncoders(stream);
  return 0;
}
