// One SMTP connection's state in the milter: the current message's queue id,
// envelope sender and recipients, raw bytes (up to a limit) and the
// X-Mailwave-* headers it arrived with.
//
// The raw message is rebuilt as the pipeline reads a file: "Name: value\r\n"
// per header, "\r\n", then the body chunks. Past `max_bytes` nothing more is
// kept and too_large() is set; the message is still analysed as far as it
// was read, and its headers are still counted.
//
// Thread-safety: none. libmilter calls one connection's callbacks one after
// another (possibly on different threads), so a Session needs no lock.
#ifndef MW_MILTER_SESSION_H_
#define MW_MILTER_SESSION_H_

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mw::milter {

class Session {
 public:
  // An incoming header of ours: its name as it came and how many headers of
  // that name (compared without case) the message holds. They are deleted
  // with smfi_chgheader(name, index, NULL) from `count` down to 1.
  struct Ours {
    std::string name;
    int count = 0;
  };

  explicit Session(std::uint64_t max_bytes) : max_bytes_(max_bytes) {}

  void set_queue_id(std::string id) { queue_id_ = std::move(id); }
  const std::string& queue_id() const { return queue_id_; }
  void set_sender(std::string sender) { sender_ = std::move(sender); }
  const std::string& sender() const { return sender_; }
  // The RCPT TO addresses the MTA accepted, in order (the milter does not
  // ask for rejected ones). Their number is bounded by the MTA
  // (smtpd_recipient_limit, 1000 by default).
  void AddRecipient(std::string address) {
    recipients_.push_back(std::move(address));
  }
  const std::vector<std::string>& recipients() const { return recipients_; }

  void AddHeader(std::string_view name, std::string_view value);
  void EndHeaders();
  void AddBody(std::string_view chunk);

  std::string_view bytes() const { return bytes_; }
  bool too_large() const { return too_large_; }
  // Keeps no more bytes from now on, as past max_bytes (the engine's global
  // [milter] max_buffered); Reset clears it.
  void StopKeeping() { too_large_ = true; }
  // Bytes the MTA sent, the part past the limit included.
  std::uint64_t size() const { return size_; }
  const std::vector<Ours>& ours() const { return ours_; }

  // One smfi_chgheader(name, index, NULL) call.
  struct Deletion {
    std::string name;
    int index = 0;
    friend bool operator==(const Deletion&, const Deletion&) = default;
  };
  // Every incoming header of ours, each name from its highest index down to
  // 1, so that deleting one never moves the index of another still to go.
  std::vector<Deletion> Deletions() const;

  // Forgets the message (after eom, in abort); the connection stays.
  void Reset();

  // The SMTP client's address, from the connect step (none: unknown).
  void set_client(const sockaddr* addr, socklen_t len);
  const sockaddr* client() const {
    return has_client_ ? reinterpret_cast<const sockaddr*>(&client_) : nullptr;
  }
  // The client's address as text ("192.0.2.7", "2001:db8::1"); "" when
  // unknown or not an IPv4 or IPv6 address (a unix-socket client).
  std::string ClientIp() const;

  // The protocol steps (SMFIP_NR_* bits) the MTA sends without waiting for
  // a reply on this connection, set once at negotiation; Reset keeps it.
  unsigned long no_reply() const { return no_reply_; }
  void set_no_reply(unsigned long bits) { no_reply_ = bits; }

  // A failure in a step that could not answer (a no-reply step): the end of
  // message answers it with the configured action. The first one is kept;
  // Reset clears it.
  const std::string& failure() const { return failure_; }
  void set_failure(std::string what) {
    if (failure_.empty()) failure_ = std::move(what);
  }

  // Whether the message counts as in flight for the shutdown drain
  // (callbacks.cc keeps the count); Reset leaves it alone.
  bool in_flight() const { return in_flight_; }
  void set_in_flight(bool v) { in_flight_ = v; }

 private:
  void Append(std::string_view data);

  std::uint64_t max_bytes_;
  std::string queue_id_;
  std::string sender_;
  std::vector<std::string> recipients_;
  std::string bytes_;
  bool too_large_ = false;
  bool body_started_ = false;
  bool in_flight_ = false;
  unsigned long no_reply_ = 0;
  sockaddr_storage client_{};
  bool has_client_ = false;
  std::string failure_;
  std::uint64_t size_ = 0;
  std::vector<Ours> ours_;
};

// True when `name` starts with kHeaderPrefix (mw/header_names.h), without
// case.
bool IsOurs(std::string_view name);

}  // namespace mw::milter

#endif  // MW_MILTER_SESSION_H_
