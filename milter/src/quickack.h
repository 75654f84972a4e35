// Quick ACKs on the milter's TCP connections.
//
// An MTA writes a macro packet and the command it belongs to as two writes
// (Postfix, miltertest). With Nagle's algorithm on the MTA's socket, which
// the milter cannot change, the second write waits until the first is
// acknowledged; a macro gets no reply, so Linux delays that ACK (up to
// 40 ms). Each message pays it. TCP_QUICKACK makes the kernel acknowledge at
// once, but Linux clears it again as soon as the connection looks
// interactive, so it has to be set after every read. libmilter reads with
// read(2) and accepts with accept(2) and exposes neither: this unit defines
// both in the executable (the dynamic linker binds libmilter's calls to
// them, as for sigwait in signals.h). `accept` marks connections accepted
// from a TCP listener; `read` sets TCP_QUICKACK on a marked descriptor after
// each read. Every other descriptor costs one bit test per read.
//
// Thread-safety: EnableQuickAck once in main before smfi_main; the shims run
// on any thread.
#ifndef MW_MILTER_QUICKACK_H_
#define MW_MILTER_QUICKACK_H_

namespace mw::milter {

void EnableQuickAck();

// True when libmilter's read and accept calls go through this unit.
bool QuickAckBound();

}  // namespace mw::milter

#endif  // MW_MILTER_QUICKACK_H_
