#!/bin/bash
# redis_bench.sh: issue 13's measurements of the Redis store, against a
# private redis-server this script starts and stops.
#
#   bench/store/redis_bench.sh [--full] [--messages N] [--clients LIST]
#                              [--queries Q] [--down S] [--no-restart]
#                              [--cluster] [--keep] [-- store_bench flags...]
#   bench/store/redis_bench.sh --eval [--cluster] [-- store_eval flags...]
#
# The server: Debian's redis-server on a unix socket (mode 700) in a
# temporary directory, appendonly yes (fsync every second), no TCP port, an
# ACL user "mwbench" whose random password is in a 0600 file the store reads
# (never on a command line); the default user stays for redis-cli on the
# private socket. The users are in the config file, so a restarted server
# has them again.
#
# Then one run of build/bin/store_bench --clients (bench/store/load_main.cc):
#   - fills SQLite (in the same directory) and Redis with N messages each
#     (default 20,000; --full: 1,000,000) from two clients, reporting the fill
#     time and bytes per message (used_memory of INFO memory);
#   - Find + Decide + Record p50/p99 and messages/s for each client count of
#     LIST (default 1,8), SQLite and Redis in turn, with the ratios;
#   - unless --no-restart: LIST's largest count of clients at 200 messages/s
#     for 25 s (and at least 15 s past the restart); 8 s in, the server is killed (SIGKILL), left down --down
#     seconds (default 2), started again on the same directory (it reloads
#     its append-only file) and waited for until it answers PING; the report
#     gives each second's figures, the failures while down and the time to
#     the first success after.
#
# --cluster: a private 3-master Redis Cluster on loopback instead (TCP ports
# found free, cluster-require-full-coverage no, joined by redis-cli --cluster
# create; no restart), the store on it through its seeds (issue 28); at the
# end, per master, its keys, used_memory and the CPU it spent over the whole
# run, each with its share of the cluster's, and the busiest master's share.
#
# --eval: build/bin/store_eval (recall through the store, docs/store.md
# "Recall through the store") on the same private server or Cluster instead of
# store_bench; compare with store_eval's SQLite figures (issue 28: recall
# through the Cluster equals the single server's, and both SQLite's).
#
# Defaults finish in about two minutes on a 2-core machine; --full takes
# about 45 minutes on 2 cores, 2 GB of memory and 4 GB of disk.
#
# Needs: redis-server and redis-cli (Debian redis-server, redis-tools),
# build/bin/store_bench, the dev corpus (../shared/data/mail or MW_MAIL_DIR).
set -euo pipefail

SELF=$(readlink -f "$0")
ROOT=$(cd "$(dirname "$SELF")/../.." && pwd)
BIN=${STORE_BENCH:-$ROOT/build/bin/store_bench}

# Starts the server of directory $1 and waits (up to 10 min: a big
# append-only file takes a while to load) until it answers PING.
start_server() {
  local dir=$1
  redis-server "$dir/redis.conf"
  for _ in $(seq 1 6000); do
    if [ "$(redis-cli -s "$dir/redis.sock" ping 2>/dev/null)" = PONG ]; then
      return 0
    fi
    sleep 0.1
  done
  echo "redis_bench: redis-server did not answer; see $dir/redis.log" >&2
  return 1
}

# The restart store_bench runs (--restart-cmd): kill, wait, start again.
if [ "${1:-}" = "--restart-server" ]; then
  dir=$2
  down=$3
  pid=$(cat "$dir/redis.pid")
  # Seconds from $1 to $2 ($EPOCHREALTIME values).
  elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
  t0=$EPOCHREALTIME
  kill -KILL "$pid"
  # Gone, or a zombie that only its reaper still holds.
  while [ -e "/proc/$pid" ] &&
        [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" != Z ]; do
    sleep 0.01
  done
  t1=$EPOCHREALTIME
  sleep "$down"
  t2=$EPOCHREALTIME
  start_server "$dir"
  t3=$EPOCHREALTIME
  echo "redis_bench: killed (gone $(elapsed "$t0" "$t1") s after the kill)," \
       "started again $(elapsed "$t0" "$t2") s after the kill, answering PING" \
       "$(elapsed "$t2" "$t3") s after its start" >&2
  exit 0
fi

MESSAGES=20000
QUERIES=5000
CLIENTS=1,8
DOWN=2
RESTART=1
KEEP=0
CLUSTER=0
EVAL=0
while [ $# -gt 0 ]; do
  case $1 in
    --full) MESSAGES=1000000; QUERIES=20000 ;;
    --messages) MESSAGES=$2; shift ;;
    --queries) QUERIES=$2; shift ;;
    --clients) CLIENTS=$2; shift ;;
    --down) DOWN=$2; shift ;;
    --no-restart) RESTART=0 ;;
    --cluster) CLUSTER=1; RESTART=0 ;;
    --eval) EVAL=1; RESTART=0 ;;
    --keep) KEEP=1 ;;
    --) shift; break ;;
    *) sed -n '2,45p' "$SELF" >&2; exit 2 ;;
  esac
  shift
done

for tool in redis-server redis-cli; do
  command -v "$tool" >/dev/null || { echo "redis_bench: $tool not found" >&2; exit 1; }
done
if [ "$EVAL" = 1 ]; then BIN=$ROOT/build/bin/store_eval; fi
[ -x "$BIN" ] || { echo "redis_bench: build $BIN first (ninja -C build $(basename "$BIN"))" >&2; exit 1; }

DIR=$(mktemp -d /tmp/mw-redis-bench-XXXXXX)
cleanup() {
  local f
  for f in "$DIR"/redis.pid "$DIR"/n*/redis.pid; do
    [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
  done
  true
  if [ "$KEEP" = 1 ]; then echo "kept $DIR" >&2; else rm -rf "$DIR"; fi
}
trap cleanup EXIT

umask 077
head -c 24 /dev/urandom | base64 | tr -d '/+=' > "$DIR/password"
# users: the ACL lines of every server (the default user stays for redis-cli).
users="user default on nopass ~* &* +@all
user mwbench on >$(cat "$DIR/password") ~* &* +@all"
if [ "$CLUSTER" = 0 ]; then
  cat > "$DIR/redis.conf" <<EOF
port 0
unixsocket $DIR/redis.sock
unixsocketperm 700
dir $DIR
save ""
appendonly yes
appendfsync everysec
daemonize yes
pidfile $DIR/redis.pid
logfile $DIR/redis.log
$users
EOF
  start_server "$DIR"
  where=(--redis "unix:$DIR/redis.sock")
else
  read -r -a ports < <(python3 -c 'import socket
s = [socket.socket() for _ in range(6)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
  nodes=() seeds=""
  for i in 0 1 2; do
    port=${ports[2 * i]}
    mkdir -p "$DIR/n$port"
    cat > "$DIR/n$port/redis.conf" <<EOF
port $port
bind 127.0.0.1
cluster-enabled yes
cluster-port ${ports[2 * i + 1]}
cluster-config-file nodes.conf
cluster-node-timeout 5000
cluster-require-full-coverage no
dir $DIR/n$port
save ""
appendonly yes
appendfsync everysec
daemonize yes
pidfile $DIR/n$port/redis.pid
logfile $DIR/n$port/redis.log
$users
EOF
    redis-server "$DIR/n$port/redis.conf"
    for _ in $(seq 1 100); do
      [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
      sleep 0.1
    done
    nodes+=("127.0.0.1:$port")
    seeds+=${seeds:+,}tcp://127.0.0.1:$port
  done
  redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes > "$DIR/create.log" 2>&1 ||
    { echo "redis_bench: redis-cli --cluster create failed; see $DIR/create.log" >&2; exit 1; }
  for n in "${nodes[@]}"; do
    for _ in $(seq 1 200); do
      redis-cli -p "${n#*:}" cluster info | grep -q '^cluster_state:ok' && break
      sleep 0.1
    done
  done
  where=(--redis-cluster "$seeds")
fi
echo "$(redis-server --version); $(nproc) cores; $(date -u +%FT%TZ)"
[ "$CLUSTER" = 1 ] && echo "Redis Cluster of 3 masters: ${nodes[*]}"

args=(--clients "$CLIENTS" --messages "$MESSAGES" --queries "$QUERIES"
      --dir "$DIR" "${where[@]}" --redis-user mwbench
      --redis-password-file "$DIR/password" --fill-clients 2)
if [ "$EVAL" = 1 ]; then
  args=("${where[@]}" --redis-user mwbench --redis-password-file "$DIR/password")
fi
if [ "$RESTART" = 1 ]; then
  args+=(--restart-at 8 --seconds 25 --rate 200
         --restart-cmd "'$SELF' --restart-server '$DIR' $DOWN")
fi
echo "+ $(basename "$BIN") ${args[*]} $*"
"$BIN" "${args[@]}" "$@"
# info NODE SECTION: INFO SECTION of a node ("unix" or host:port), no CRs.
info() {
  if [ "$1" = unix ]; then
    redis-cli -s "$DIR/redis.sock" info "$2" | tr -d '\r'
  else
    redis-cli -p "${1#*:}" info "$2" | tr -d '\r'
  fi
}
if [ "$CLUSTER" = 0 ]; then all=(unix); else all=("${nodes[@]}"); fi
if [ "$CLUSTER" = 0 ]; then
  echo
  echo "redis INFO memory:"
  info unix memory | grep -E '^(used_memory|used_memory_rss|mem_fragmentation_ratio|mem_allocator):'
  info unix keyspace | grep -v '^#' || true
else
  echo
  echo "per master, over the whole run (fill and queries): keys, used_memory, CPU (used_cpu_user + sys):"
  for n in "${nodes[@]}"; do
    keys=$(redis-cli -p "${n#*:}" dbsize)
    mem=$(info "$n" memory | sed -n 's/^used_memory://p')
    cpu=$(info "$n" cpu | awk -F: '$1 == "used_cpu_user" || $1 == "used_cpu_sys" { s += $2 } END { printf "%.3f", s }')
    echo "$n $keys $mem $cpu"
  done | awk '{ n[NR] = $1; k[NR] = $2; m[NR] = $3; c[NR] = $4; K += $2; M += $3; C += $4 }
    END {
      for (i = 1; i <= NR; i++) {
        printf "  %-21s %9d keys (%5.1f%%) %12d bytes (%5.1f%%) %9.3f s CPU (%5.1f%%)\n",
          n[i], k[i], 100 * k[i] / K, m[i], 100 * m[i] / M, c[i], 100 * c[i] / C
        if (k[i] / K > bk) bk = k[i] / K
        if (c[i] / C > bc) bc = c[i] / C
      }
      printf "  busiest master: %.1f%% of the keys, %.1f%% of the CPU (issue 28: at most 40%% each)\n", 100 * bk, 100 * bc
    }'
fi
echo
echo "redis INFO commandstats, the whole run (calls from the store's scripts counted apart), by CPU:"
for n in "${all[@]}"; do info "$n" commandstats; done | grep '^cmdstat_' |
  sed -E 's/^cmdstat_([^:]+):calls=([0-9]+),usec=([0-9]+),usec_per_call=([0-9.]+).*/\1 \2 \3/' |
  awk '{ calls[$1] += $2; usec[$1] += $3 } END { for (c in calls) print usec[c], c, calls[c] }' |
  sort -rn | head -15 |
  awk '{printf "  %-12s %9d calls %9.3f s %8.2f us a call\n", $2, $3, $1 / 1e6, $1 / $3}'
du -sh "$DIR/appendonlydir" "$DIR"/n*/appendonlydir "$DIR/bench.db" 2>/dev/null || true
