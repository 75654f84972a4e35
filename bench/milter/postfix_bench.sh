#!/usr/bin/env bash
# postfix_bench.sh: Postfix's throughput without and with mailwave-milter, over
# a unix socket and over TCP, in one run (so the ratios hold on a noisy box).
#
#   bench/milter/postfix_bench.sh [MESSAGES [SESSIONS [ROUNDS]]]   (root)
#
# A private Postfix on loopback (tests/e2e/lib/postfix.sh) relays to
# smtp-sink; bench/milter/smtp_load.py sends MESSAGES corpus messages (3-20 KB
# files of ../shared/data/mail, else tests/fixtures/mail) over SESSIONS
# parallel SMTP sessions. Cases, alternated ROUNDS times: no milter; the milter
# on a unix socket; on TCP (TCP_NODELAY on its listener, as it ships); on TCP
# with Nagle's algorithm left on (MAILWAVE_MILTER_NAGLE=1: libmilter as it
# comes). One line per case and round: messages/s from the first MAIL FROM
# until the last message is at the sink, the client's time per message
# (p50/p99), and the milter's CPU seconds, also per message: all of it
# (milter_ms_per_msg) and its event loop's part (protocol_ms_per_msg: the main
# thread runs the loop, which does the protocol and its system calls; the
# analysis runs on the worker pool's threads); then the medians as ratios to
# "none". Defaults: 5000 messages, 20 sessions, 2 rounds.
set -euo pipefail

messages=${1:-5000}
sessions=${2:-20}
rounds=${3:-2}
repo=$(cd "$(dirname "$0")/../.." && pwd)
milter=$repo/build/bin/mailwave-milter
dict=$repo/build/share/mailwave/langid.dict
[ -x "$milter" ] || { echo "build first: $milter" >&2; exit 2; }

# shellcheck source=../../tests/e2e/lib/postfix.sh
source "$repo/tests/e2e/lib/postfix.sh"

if [ -d "$repo/../shared/data/mail" ]; then
  mapfile -t files < <(find "$repo/../shared/data/mail" -type f -size +3k -size -20k | sort | head -n 500)
else
  mapfile -t files < <(find "$repo/tests/fixtures/mail" -type f | sort)
fi

pf_init "$(mktemp -d /tmp/mw-pfbench.XXXXXX)"
trap pf_cleanup EXIT
tcp_port=$(pf_free_port)
store=$PF_DIR/store
mkdir -p "$store"
write_config() {  # SOCKET
  cat >"$PF_DIR/mailwave.toml" <<EOF
[langid]
dictionary = "$dict"
[store]
path = "$store/mailwave.db"
[milter]
socket = "$1"
EOF
}

start_milter() {  # CASE
  case $1 in
    unix)
      write_config "unix:$PF_MILTER_SOCKET"
      pf_milter_start "$milter" -f -c "$PF_DIR/mailwave.toml"
      ;;
    tcp | tcp-nagle)
      write_config "inet:$tcp_port@127.0.0.1"
      local nagle=0
      [ "$1" = tcp-nagle ] && nagle=1
      (umask 007; MAILWAVE_MILTER_NAGLE=$nagle exec "$milter" -f -c "$PF_DIR/mailwave.toml") \
        >>"$PF_MILTER_LOG" 2>&1 &
      PF_MILTER_PID=$!
      pf_poll 20 pf_listening "$tcp_port"
      ;;
  esac
}

set_postfix_milter() {  # CASE
  local value=""
  case $1 in
    unix) value="unix:$PF_MILTER_SOCKET" ;;
    tcp | tcp-nagle) value="inet:127.0.0.1:$tcp_port" ;;
  esac
  postconf -c "$PF_CONF" -e "smtpd_milters = $value" "non_smtpd_milters = $value"
  pf_reload
  sleep 1  # smtpd processes pick up the new configuration
}

milter_cpu() {  # PID [TID]: user+system seconds of the process, or of one thread
  [ -n "$1" ] || { echo 0; return; }
  local stat=/proc/$1/stat
  [ -n "${2:-}" ] && stat=/proc/$1/task/$2/stat
  awk '{ printf "%.2f", ($14 + $15) / 100 }' "$stat" 2>/dev/null || echo 0
}

PF_MILTER="" pf_start_sink
PF_MILTER="" pf_start
declare -A rates loops
echo "postfix_bench: $messages messages over $sessions sessions, ${#files[@]} corpus files, $rounds rounds"
for ((r = 1; r <= rounds; r++)); do
  for c in none unix tcp tcp-nagle; do
    [ "$c" = none ] || start_milter "$c"
    set_postfix_milter "$c"
    before=$(pf_sink_count)
    t0=$(pf_now_ms)
    out=$(python3 "$repo/bench/milter/smtp_load.py" --server "127.0.0.1:$PF_SMTP_PORT" \
      --sessions "$sessions" --messages "$messages" "${files[@]}")
    pf_wait_sink_count $((before + messages)) 600
    t1=$(pf_now_ms)
    cpu=$(milter_cpu "$PF_MILTER_PID")
    loop=$(milter_cpu "$PF_MILTER_PID" "$PF_MILTER_PID")
    rate=$(awk -v n="$messages" -v ms=$((t1 - t0)) 'BEGIN { printf "%.1f", n * 1000 / ms }')
    rates[$c]="${rates[$c]:-} $rate"
    per_msg=""
    if [ "$c" != none ]; then
      read -r cpu_ms loop_ms < <(awk -v n="$messages" -v cpu="$cpu" -v loop="$loop" \
        'BEGIN { printf "%.3f %.3f\n", cpu * 1000 / n, loop * 1000 / n }')
      per_msg="milter_ms_per_msg=$cpu_ms protocol_ms_per_msg=$loop_ms "
      loops[$c]="${loops[$c]:-} $loop_ms"
    fi
    echo "round=$r case=$c delivered_per_s=$rate milter_cpu_s=$cpu ${per_msg}client: $out"
    [ "$c" = none ] || pf_milter_stop TERM
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
base=$(median <<<"${rates[none]}")
for c in none unix tcp tcp-nagle; do
  m=$(median <<<"${rates[$c]}")
  p=""
  [ "$c" = none ] || p=$(median <<<"${loops[$c]}")
  awk -v c="$c" -v m="$m" -v b="$base" -v p="$p" 'BEGIN {
    printf "median case=%-9s delivered_per_s=%7.1f ratio_to_none=%.3f", c, m, m / b
    if (p != "") printf " protocol_ms_per_msg=%.3f", p
    printf "\n" }'
done
