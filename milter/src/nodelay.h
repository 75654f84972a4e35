// TCP_NODELAY for a listening socket libmilter made.
//
// libmilter never sets TCP_NODELAY, and it writes a reply per milter command:
// with Nagle's algorithm on the milter's side and delayed ACKs on the MTA's,
// a reply that follows a small unacknowledged one waits for the peer's
// delayed ACK, about 40 ms on loopback, several times per message. libmilter
// creates the listening socket itself and exposes no descriptor, so after
// smfi_opensocket this finds it among the process' descriptors (a TCP socket
// in the listening state) and sets the option there: Linux gives accepted
// connections the listener's TCP_NODELAY (tests/milter/nodelay_test.cc
// checks that premise on the running kernel).
#ifndef MW_MILTER_NODELAY_H_
#define MW_MILTER_NODELAY_H_

namespace mw::milter {

// Sets TCP_NODELAY on every listening TCP socket of the process; returns how
// many it set (0 for a unix socket), or -1 when the descriptors cannot be
// listed.
int SetNoDelayOnListeners();

}  // namespace mw::milter

#endif  // MW_MILTER_NODELAY_H_
