#!/usr/bin/env bash
# Runs an mpirun command across two "hosts" made as network namespaces on this
# machine, so that multi-host Open MPI runs can be tested without a cluster.
#
#   scripts/netns-hosts.sh [--min-bytes N] [--timeout S] mpirun [ARGS...]
#
# The hosts are the namespaces shardc-PID-h0 and shardc-PID-h1 (PID: this
# script's, so parallel runs and leftovers do not collide), each with its own
# loopback, its own host name (a UTS namespace) and one end of a veth pair
# (10.231.0.1/24 and 10.231.0.2/24). mpirun runs on h0; an rsh agent that
# enters the host's namespace (as `ssh HOST CMD` would log in) starts Open
# MPI's daemon on h1. The script inserts, after `mpirun`:
#   --hostfile F (h0 and h1, one slot each) --mca plm_rsh_agent AGENT
#   --mca btl tcp,self --mca btl_tcp_if_include 10.231.0.0/24
#   --mca oob_tcp_if_include 10.231.0.0/24 --mca mpi_yield_when_idle 1
# so ranks on different hosts talk TCP over the veth, never shared memory.
# The hosts share this machine's cores, as ranks under --oversubscribe do, so
# waiting ranks yield the core: spinning (Open MPI's default for a host with
# one rank per slot) made a 4 KiB all-reduce take 13 ms instead of 66 us.
# Afterwards it prints the bytes and packets that crossed the veth in each
# direction during the run (the veth's counters in /sys/class/net), fails if
# either direction carried fewer than --min-bytes N, and always removes the
# namespaces, the veth pair and its temporary files. Needs root (ip netns,
# unshare --uts); exits with mpirun's status.
set -euo pipefail

die() { echo "netns-hosts: error: $*" >&2; exit 2; }

min_bytes=0
timeout_s=60
while [ $# -gt 0 ]; do
  case $1 in
    --min-bytes) [ $# -ge 2 ] || die "--min-bytes needs a number"; min_bytes=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; timeout_s=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) die "unknown option '$1'" ;;
    *) break ;;
  esac
done
[[ $min_bytes =~ ^[0-9]+$ ]] || die "--min-bytes '$min_bytes': expected a number of bytes"
[[ $timeout_s =~ ^[0-9]+$ ]] || die "--timeout '$timeout_s': expected seconds"
[ $# -ge 1 ] && [ "$(basename "$1")" = mpirun ] || die "expected an mpirun command (scripts/netns-hosts.sh mpirun -np 2 ./model ...)"
[ "$(id -u)" -eq 0 ] || die "network namespaces need root"
command -v ip >/dev/null || die "'ip' (iproute2) is not installed"
command -v unshare >/dev/null || die "'unshare' (util-linux) is not installed"

id=$$
h0=shardc-$id-h0
h1=shardc-$id-h1
v0=sc${id}a # interface names have at most 15 characters
v1=sc${id}b
subnet=10.231.0.0/24
a0=10.231.0.1
a1=10.231.0.2
work=

cleanup() {
  local ns pid
  for ns in "$h0" "$h1"; do
    if [ -e "/var/run/netns/$ns" ]; then
      # Processes this run left inside the namespace (a daemon after a timeout).
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
      ip netns del "$ns" 2>/dev/null || true
    fi
  done
  [ -z "$work" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# Names of a killed run's namespaces (the PID is ours now) are stale: drop them.
for ns in "$h0" "$h1"; do [ ! -e "/var/run/netns/$ns" ] || ip netns del "$ns"; done
work=$(mktemp -d /tmp/shardc-netns.XXXXXX)

ip netns add "$h0"
ip netns add "$h1"
ip link add "$v0" netns "$h0" type veth peer name "$v1" netns "$h1"
ip -n "$h0" addr add "$a0/24" dev "$v0"
ip -n "$h1" addr add "$a1/24" dev "$v1"
for ns in "$h0" "$h1"; do ip -n "$ns" link set lo up; done
ip -n "$h0" link set "$v0" up
ip -n "$h1" link set "$v1" up

printf '%s slots=1\n%s slots=1\n' "$h0" "$h1" >"$work/hostfile"
# The rsh agent: called as `AGENT [options] HOST CMD...` like ssh; the host
# name is the namespace's name, so it enters that namespace, takes the host's
# name and runs CMD with sh, as sshd would with the login shell.
cat >"$work/rsh-agent" <<EOF
#!/bin/sh
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1
shift
case \$host in
  $h0|$h1) ;;
  *) echo "netns-hosts rsh agent: unknown host '\$host' (hosts: $h0 $h1)" >&2; exit 255 ;;
esac
exec ip netns exec "\$host" unshare --uts sh -c 'hostname "\$0" && exec sh -c "\$1"' "\$host" "\$*"
EOF
chmod +x "$work/rsh-agent"

counter() { ip netns exec "$h0" cat "/sys/class/net/$v0/statistics/$1"; }
tx0=$(counter tx_bytes); rx0=$(counter rx_bytes)
txp0=$(counter tx_packets); rxp0=$(counter rx_packets)

mpirun=$1
shift
cmd=("$mpirun" --hostfile "$work/hostfile" --mca plm_rsh_agent "$work/rsh-agent"
     --mca btl tcp,self --mca btl_tcp_if_include "$subnet"
     --mca oob_tcp_if_include "$subnet" --mca mpi_yield_when_idle 1 "$@")
echo "netns-hosts: hosts $h0 ($a0) and $h1 ($a1): network namespaces joined by the veth pair $v0-$v1" >&2
echo "netns-hosts: on $h0: ${cmd[*]}" >&2
status=0
ip netns exec "$h0" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$h0" \
  timeout -k 5 "$timeout_s" "${cmd[@]}" || status=$?
[ "$status" -ne 124 ] || echo "netns-hosts: error: mpirun did not finish within $timeout_s s" >&2

tx=$(( $(counter tx_bytes) - tx0 )); rx=$(( $(counter rx_bytes) - rx0 ))
txp=$(( $(counter tx_packets) - txp0 )); rxp=$(( $(counter rx_packets) - rxp0 ))
echo "netns-hosts: veth traffic during the run: h0->h1 $tx bytes ($txp packets), h1->h0 $rx bytes ($rxp packets)" >&2
if [ "$status" -eq 0 ] && { [ "$tx" -lt "$min_bytes" ] || [ "$rx" -lt "$min_bytes" ]; }; then
  echo "netns-hosts: error: the veth carried fewer than --min-bytes $min_bytes in a direction" >&2
  status=1
fi
exit "$status"
