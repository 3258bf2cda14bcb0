#!/bin/bash
# vcluster.sh - a virtual Slurm cluster on one machine, for slurmix tests and
# for users who want to try slurmix without a real cluster.
#
# One slurmctld and N slurmd run on this machine.  Every slurmd lives in its
# own mount and UTS namespace: its hostname is its node name (vn1, vn2, ...)
# and it has a private /tmp and /dev/shm, so tasks on different virtual nodes
# see different node-local directories, as on a real cluster.  All daemons
# talk over 127.0.0.1, each slurmd on its own port.
#
# Run "vcluster.sh help" for usage.  Must run as root.

set -euo pipefail
export LC_ALL=C

PROG=${0##*/}

# ---- defaults (most can be changed by options or environment) -------------
STATE_DIR=${SLURMIX_VCLUSTER_DIR:-/var/lib/slurmix-vcluster}
NODES=4
CPUS=8
TREE_WIDTH=4
PLUGIN_DIR=""
SLURM_PREFIX=${SLURMIX_VCLUSTER_SLURM:-}
SLURM_GIVEN=0
PORT_BASE=${SLURMIX_VCLUSTER_PORT:-17817}
TIMEOUT=60
RESTART=0
ADD_HOSTS=0
MPI_CONF=""
DEBUG=info
NODE_PREFIX=vn
CTLD_HOSTNAME=vctl
CLUSTER_NAME=slurmix
TEST_USER=slurmixtest

usage() {
    cat <<EOF
Usage: $PROG COMMAND [OPTIONS]

A virtual Slurm cluster on one machine: slurmctld plus N slurmd, each slurmd in
its own mount+UTS namespace (hostname = node name, private /tmp and /dev/shm),
all on 127.0.0.1.  Must be run as root.

Commands:
  start     start munge (if not running), slurmctld and the slurmd's; wait
            until every node is idle
  stop      stop everything this script started; leave nothing running
  restart   stop, then start (same options as start)
  status    show the daemons and sinfo
  env       print the export lines needed to use the cluster, e.g.
              eval "\$($PROG env)"
  adduser   create the unprivileged test user '$TEST_USER' (idempotent)
  help      this text

Options (start/restart; --state-dir for every command):
  -n, --nodes N          number of virtual nodes (default $NODES)
  -c, --cpus N           CPUs declared per node (default $CPUS)
  -w, --tree-width W     Slurm TreeWidth (default $TREE_WIDTH; Slurm's own
                         default is 50)
  -p, --plugin-dir DIR   put DIR before Slurm's plugin directory in PluginDir
                         (e.g. the build directory holding mpi_slurmix.so)
      --slurm PREFIX     run the Slurm installed in PREFIX (its sbin/slurmctld,
                         sbin/slurmd, bin/srun, lib/slurm plugins; e.g. one
                         built by contrib/slurm-from-source.sh) instead of
                         Debian's (env SLURMIX_VCLUSTER_SLURM).  Every
                         command of a running cluster uses the Slurm it was
                         started with; 'env' puts PREFIX/bin first in PATH.
  -s, --state-dir DIR    configuration, spool, logs, per-node /tmp
                         (default $STATE_DIR, env SLURMIX_VCLUSTER_DIR).  Must
                         not be under /tmp: every node has its own /tmp.
      --port-base P      slurmctld port P, slurmd ports P+1..P+N
                         (default $PORT_BASE, env SLURMIX_VCLUSTER_PORT)
  -t, --timeout S        seconds to wait for daemons (default $TIMEOUT)
      --mpi-conf FILE    use FILE as mpi.conf (default: an empty mpi.conf;
                         it is rewritten on every start)
  -d, --debug LEVEL      SlurmctldDebug/SlurmdDebug (default $DEBUG; e.g. debug,
                         debug2; logs in STATE_DIR/log)
      --restart          if the cluster is running, stop it first
      --hosts            also add the node names to /etc/hosts (removed again
                         by stop).  Slurm and Open MPI do not need it.

Using it:
  eval "\$($PROG env)"
  srun -N4 -n8 hostname
  srun --mpi=pmix -N4 -n8 ./mpi_program   # program and cwd outside /tmp

Open MPI needs its TCP transports on loopback here; 'env' prints
  OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
Direct launch with srun works as root without further settings; mpirun as
root also needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.
Restart the cluster after rebuilding an mpi plugin: slurmd loads every mpi
plugin it finds when it starts.
EOF
}

log()  { printf '%s: %s\n' "$PROG" "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
STARTING=0
die() {
    printf '%s: error: %s\n' "$PROG" "$*" >&2
    if [ "$STARTING" -eq 1 ]; then
        # a failed start leaves nothing running (logs are kept)
        STARTING=0
        cmd_stop >/dev/null 2>&1 || true
        printf '%s: stopped what had started; logs in %s\n' "$PROG" "$LOGDIR" >&2
    fi
    exit 1
}

need_root() {
    [ "$(id -u)" -eq 0 ] || die "must be run as root"
}

# ---- paths derived from STATE_DIR ------------------------------------------
set_paths() {
    case "$STATE_DIR" in
        /*) ;;
        *) STATE_DIR=$(pwd)/$STATE_DIR ;;
    esac
    STATE_DIR=${STATE_DIR%/}
    case "$STATE_DIR/" in
        /tmp/*|/dev/shm/*) die "state directory must not be under /tmp or /dev/shm (each node has its own)" ;;
    esac
    ETC=$STATE_DIR/etc
    CONF=$ETC/slurm.conf
    RUN=$STATE_DIR/run
    LOGDIR=$STATE_DIR/log
    NODEDIR=$STATE_DIR/nodes
    CTLD_STATE=$STATE_DIR/ctld
    PARAMS=$RUN/params
    CTLD_PID=$RUN/slurmctld.pid
    export SLURM_CONF=$CONF
}

node_name() { printf '%s%d' "$NODE_PREFIX" "$1"; }

# ---- small helpers ---------------------------------------------------------
pid_of() {          # pid_of PIDFILE [COMM] -> prints pid if that process is alive
    local pid
    [ -r "$1" ] || return 1
    pid=$(tr -dc '0-9' <"$1")
    [ -n "$pid" ] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    # a stale pid file may name a recycled pid
    if [ -n "${2:-}" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$2" ]; then
        return 1
    fi
    # a zombie is not alive
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] || return 1
    printf '%s\n' "$pid"
}

pid_gone() {        # pid_gone PID -> true once the process has exited
    kill -0 "$1" 2>/dev/null || return 0
    [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

wait_gone() {       # wait_gone SECONDS PID... -> false if any still alive
    local deadline=$((SECONDS + $1)) p alive
    shift
    while :; do
        alive=0
        for p in "$@"; do pid_gone "$p" || alive=1; done
        [ $alive -eq 0 ] && return 0
        [ $SECONDS -ge $deadline ] && return 1
        sleep 0.2
    done
}

elapsed() {         # elapsed START -> seconds since START ($EPOCHREALTIME)
    awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

find_slurm_plugin_dir() {
    local d
    if [ -n "$SLURM_PREFIX" ]; then
        for d in "$SLURM_PREFIX/lib/slurm" "$SLURM_PREFIX/lib64/slurm"; do
            [ -e "$d/select_cons_tres.so" ] && { printf '%s\n' "$d"; return 0; }
        done
        return 1
    fi
    for d in /usr/lib/*/slurm-wlm /usr/lib/slurm-wlm /usr/lib64/slurm /usr/lib/slurm; do
        [ -e "$d/select_cons_tres.so" ] && { printf '%s\n' "$d"; return 0; }
    done
    return 1
}

ensure_packages() {
    local missing=() p pkgs=(munge slurmctld slurmd slurm-client)
    # a Slurm of its own prefix needs only Debian's munge
    [ -n "$SLURM_PREFIX" ] && pkgs=(munge)
    for p in "${pkgs[@]}"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    command -v unshare >/dev/null || missing+=(util-linux)
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null || die "apt-get update failed"
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
        || die "apt-get install ${missing[*]} failed"
}

# ---- munge -----------------------------------------------------------------
munge_works() {
    munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1
}

start_munge() {
    if munge_works; then
        return 0
    fi
    local key=/etc/munge/munge.key i
    if [ ! -s "$key" ]; then
        log "creating munge key $key"
        mkdir -p /etc/munge
        if command -v mungekey >/dev/null; then
            mungekey --create --keyfile="$key" --force >/dev/null
        elif command -v create-munge-key >/dev/null; then
            create-munge-key -f >/dev/null
        else
            dd if=/dev/urandom of="$key" bs=1 count=1024 2>/dev/null
        fi
        chown munge:munge /etc/munge "$key" 2>/dev/null || true
        chmod 700 /etc/munge
        chmod 400 "$key"
    fi
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
    chmod 755 /run/munge
    # Debian's way: as user munge.  Fall back to root with --force.
    if ! runuser -u munge -- munged 2>"$RUN/munged.err"; then
        munged --force 2>>"$RUN/munged.err" || die "cannot start munged: $(cat "$RUN/munged.err")"
    fi
    for i in $(seq 50); do
        munge_works && break
        sleep 0.1
        [ "$i" -eq 50 ] && die "munged started but does not answer"
    done
    pid_of /run/munge/munged.pid munged >"$RUN/munged.started" || true
}

stop_munge() {
    local pid
    [ -s "$RUN/munged.started" ] || return 0
    pid=$(tr -dc '0-9' <"$RUN/munged.started")
    rm -f "$RUN/munged.started"
    [ -n "$pid" ] || return 0
    # another Slurm on this machine (e.g. a second virtual cluster) may
    # still need munge
    if ps -eo stat=,comm= | awk '$1 !~ /^Z/ && $2 ~ /^(slurmctld|slurmd|slurmstepd)$/ {f=1} END {exit !f}'; then
        log "leaving munged running: other Slurm daemons use it"
        return 0
    fi
    # only the munged we started, and only if it is still that process
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = munged ]; then
        kill "$pid" 2>/dev/null || true
        wait_gone "$TIMEOUT" "$pid" || { kill -KILL "$pid" 2>/dev/null || true; }
    fi
}

# ---- /etc/hosts ------------------------------------------------------------
HOSTS_TAG="# slurmix-vcluster"

hosts_remove() {
    grep -q "$HOSTS_TAG" /etc/hosts 2>/dev/null || return 0
    # rewrite in place: /etc/hosts may be a bind mount that cannot be renamed over
    local tmp
    tmp=$(grep -v "$HOSTS_TAG" /etc/hosts)
    printf '%s\n' "$tmp" >/etc/hosts
}

hosts_add() {
    local i names=""
    for i in $(seq "$NODES"); do names="$names $(node_name "$i")"; done
    hosts_remove
    printf '127.0.0.1 %s%s %s\n' "$CTLD_HOSTNAME" "$names" "$HOSTS_TAG" >>/etc/hosts
}

# ---- configuration ---------------------------------------------------------
write_conf() {
    local debian_plugins plugindir i name
    debian_plugins=$(find_slurm_plugin_dir) || die "cannot find Slurm's plugin directory${SLURM_PREFIX:+ in $SLURM_PREFIX}"
    plugindir=$debian_plugins
    if [ -n "$PLUGIN_DIR" ]; then
        [ -d "$PLUGIN_DIR" ] || die "plugin directory $PLUGIN_DIR does not exist"
        plugindir=$PLUGIN_DIR:$debian_plugins
    fi
    {
        cat <<EOF
# Written by $PROG - a virtual Slurm cluster on one machine.  Regenerated on
# every start; edit the script, not this file.
ClusterName=$CLUSTER_NAME
SlurmctldHost=$CTLD_HOSTNAME(127.0.0.1)
SlurmctldPort=$PORT_BASE
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
PluginDir=$plugindir
MpiDefault=none
TreeWidth=$TREE_WIDTH

StateSaveLocation=$CTLD_STATE
SlurmctldPidFile=$CTLD_PID
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdSpoolDir=$NODEDIR/%n/spool
SlurmdPidFile=$RUN/slurmd.%n.pid
SlurmdLogFile=$LOGDIR/slurmd.%n.log
SlurmdParameters=config_overrides
SlurmctldDebug=$DEBUG
SlurmdDebug=$DEBUG

ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_interval=2
ReturnToService=2
MailProg=/bin/true
InactiveLimit=0
KillWait=3
MinJobAge=30
MessageTimeout=20
SlurmdTimeout=120
SlurmctldTimeout=120

EOF
        for i in $(seq "$NODES"); do
            name=$(node_name "$i")
            printf 'NodeName=%s NodeHostname=%s NodeAddr=127.0.0.1 Port=%d CPUs=%d Sockets=1 CoresPerSocket=%d ThreadsPerCore=1 RealMemory=1024 State=UNKNOWN\n' \
                "$name" "$name" $((PORT_BASE + i)) "$CPUS" "$CPUS"
        done
        printf 'PartitionName=vc Nodes=%s[1-%d] Default=YES MaxTime=INFINITE OverSubscribe=FORCE State=UP\n' \
            "$NODE_PREFIX" "$NODES"
    } >"$CONF.new"
    mv "$CONF.new" "$CONF"
    # Slurm reads mpi.conf from the directory of slurm.conf: empty unless
    # --mpi-conf gives one.  Nothing here uses cgroups: no cgroup.conf up to
    # Slurm 23.11; from 24.05 (which knows CgroupPlugin=disabled) one that
    # turns them off, or every step logs that cgroup.conf is missing.
    if [ -n "$MPI_CONF" ]; then
        cp "$MPI_CONF" "$ETC/mpi.conf.new"
    else
        : >"$ETC/mpi.conf.new"
    fi
    mv "$ETC/mpi.conf.new" "$ETC/mpi.conf"
    rm -f "$ETC/cgroup.conf"
    local series
    series=$(slurmd -V 2>/dev/null | awk '{split($2, v, "."); printf "%d", v[1] * 100 + v[2]}')
    if [ -n "$series" ] && [ "$series" -ge 2405 ]; then
        printf '# Written by %s: nothing here uses cgroups.\nCgroupPlugin=disabled\n' "$PROG" \
            >"$ETC/cgroup.conf"
        chmod 644 "$ETC/cgroup.conf"
    fi
    chmod 644 "$CONF" "$ETC/mpi.conf"
}

save_params() {
    printf 'NODES=%s\nCPUS=%s\nTREE_WIDTH=%s\nPLUGIN_DIR=%s\nPORT_BASE=%s\nDEBUG=%s\nSLURM=%s\n' \
        "$NODES" "$CPUS" "$TREE_WIDTH" "$PLUGIN_DIR" "$PORT_BASE" "$DEBUG" "$SLURM_PREFIX" >"$PARAMS"
}

load_param() {      # load_param KEY -> value saved by the running cluster
    [ -r "$PARAMS" ] || return 1
    sed -n "s/^$1=//p" "$PARAMS"
}

# ---- daemons ---------------------------------------------------------------
start_ctld() {
    rm -rf "$CTLD_STATE"
    mkdir -p "$CTLD_STATE"
    # Own UTS namespace so that the controller's hostname matches
    # SlurmctldHost whatever this machine is called.
    # shellcheck disable=SC2016  # $1/$2 are expanded by the inner sh
    unshare --uts -- /bin/sh -c 'hostname "$1" && exec slurmctld -c -f "$2"' \
        sh "$CTLD_HOSTNAME" "$CONF" >"$LOGDIR/slurmctld.out" 2>&1 \
        || die "slurmctld failed to start; see $LOGDIR/slurmctld.out and $LOGDIR/slurmctld.log"
}

start_slurmd() {    # start_slurmd INDEX
    local name dir
    name=$(node_name "$1")
    dir=$NODEDIR/$name
    # fresh spool (job ids restart at 1) and empty /tmp
    rm -rf "$dir/tmp" "$dir/spool"
    mkdir -p "$dir/spool" "$dir/tmp"
    chmod 1777 "$dir/tmp"
    # Private /tmp (a directory of the state dir, visible from the host for
    # debugging), private /dev/shm (tmpfs that disappears with the namespace),
    # own hostname.
    # shellcheck disable=SC2016  # $1..$3 are expanded by the inner sh
    unshare --mount --uts --propagation private -- /bin/sh -c '
        mount --bind "$1" /tmp || exit 1
        mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm || echo "no private /dev/shm" >&2
        hostname "$2" || exit 1
        exec slurmd -f "$3" -N "$2"' sh "$dir/tmp" "$name" "$CONF" \
        >"$LOGDIR/slurmd.$name.out" 2>&1
}

record_namespaces() {   # remember each slurmd's mount namespace for stop
    local i name pid deadline=$((SECONDS + TIMEOUT))
    for i in $(seq "$NODES"); do
        name=$(node_name "$i")
        until pid=$(pid_of "$RUN/slurmd.$name.pid" slurmd); do
            [ $SECONDS -ge $deadline ] && die "slurmd $name did not start; see $LOGDIR/slurmd.$name.log"
            sleep 0.2
        done
        readlink "/proc/$pid/ns/mnt" >"$RUN/slurmd.$name.mntns"
    done
}

wait_idle() {
    local deadline=$((SECONDS + TIMEOUT)) out idle
    until out=$(sinfo -h -N -p vc -o '%N %t' 2>/dev/null) && \
          idle=$(printf '%s\n' "$out" | awk '$2 == "idle" {n++} END {print n + 0}') && \
          [ "$idle" -eq "$NODES" ]; do
        if [ $SECONDS -ge $deadline ]; then
            printf '%s\n' "$out" >&2
            die "nodes not idle after ${TIMEOUT}s; logs in $LOGDIR"
        fi
        sleep 0.3
    done
}

cluster_running() {
    pid_of "$CTLD_PID" slurmctld >/dev/null && return 0
    local f
    for f in "$RUN"/slurmd.*.pid; do
        [ -e "$f" ] && pid_of "$f" slurmd >/dev/null && return 0
    done
    return 1
}

port_in_use() {     # something listens on 127.0.0.1:PORT
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

check_ports() {
    local p
    for p in $(seq "$PORT_BASE" $((PORT_BASE + NODES))); do
        port_in_use "$p" && die "port $p is in use (another cluster? choose --port-base)"
    done
    return 0
}

all_alive() {
    local i
    pid_of "$CTLD_PID" slurmctld >/dev/null || return 1
    for i in $(seq "$NODES"); do
        pid_of "$RUN/slurmd.$(node_name "$i").pid" slurmd >/dev/null || return 1
    done
    munge_works
}

cmd_start() {
    need_root
    if cluster_running; then
        if [ "$RESTART" -eq 1 ]; then
            cmd_stop
        else
            local want have
            want=$(printf '%s|' "$NODES" "$CPUS" "$TREE_WIDTH" "$PLUGIN_DIR" "$PORT_BASE" "$DEBUG" "$SLURM_PREFIX")
            have=$(printf '%s|' "$(load_param NODES)" "$(load_param CPUS)" "$(load_param TREE_WIDTH)" \
                "$(load_param PLUGIN_DIR)" "$(load_param PORT_BASE)" "$(load_param DEBUG)" "$(load_param SLURM)")
            if [ "$want" != "$have" ]; then
                die "a virtual cluster with other settings is running (use --restart, or stop first)"
            fi
            all_alive || die "the virtual cluster is only partly running (see '$PROG status'); use --restart"
            log "already running ($(summary)); use --restart to restart it"
            return 0
        fi
    fi
    local t0=$EPOCHREALTIME i pids=()
    ensure_packages
    check_ports
    STARTING=1
    mkdir -p "$ETC" "$RUN" "$LOGDIR" "$NODEDIR"
    chmod 755 "$STATE_DIR" "$ETC"
    rm -f "$RUN"/*.pid "$RUN"/*.mntns "$LOGDIR"/*.log "$LOGDIR"/*.out
    start_munge
    write_conf
    save_params
    if [ "$ADD_HOSTS" -eq 1 ]; then hosts_add; fi
    start_ctld
    for i in $(seq "$NODES"); do
        start_slurmd "$i" &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || die "slurmd $(node_name $((i + 1))) failed to start; see $LOGDIR/slurmd.$(node_name $((i + 1))).{out,log}"
    done
    record_namespaces
    wait_idle
    STARTING=0
    log "started in $(elapsed "$t0")s: $(summary)"
}

summary() {
    printf '%d nodes %s[1-%d] x %d CPUs, TreeWidth=%s, port %s, SLURM_CONF=%s' \
        "$NODES" "$NODE_PREFIX" "$NODES" "$CPUS" "$TREE_WIDTH" "$PORT_BASE" "$CONF"
    [ -n "$PLUGIN_DIR" ] && printf ', PluginDir=%s:...' "$PLUGIN_DIR"
    [ -n "$SLURM_PREFIX" ] && printf ', Slurm %s' "$SLURM_PREFIX"
    return 0
}

# Every process in one of our slurmd mount namespaces (slurmd, slurmstepd,
# tasks).  Nothing else shares those namespaces.
ns_pids() {
    local f p ns
    local -A ours=()
    for f in "$RUN"/slurmd.*.mntns; do
        [ -s "$f" ] && ours[$(cat "$f")]=1
    done
    [ ${#ours[@]} -gt 0 ] || return 0
    for p in /proc/[0-9]*; do
        ns=$(readlink "$p/ns/mnt" 2>/dev/null) || continue
        [ -n "${ours[$ns]:-}" ] && printf '%s\n' "${p#/proc/}"
    done
    return 0
}

cancel_jobs() {
    local jobs deadline=$((SECONDS + 15))
    mapfile -t jobs < <(squeue -h -o %A 2>/dev/null)
    [ ${#jobs[@]} -gt 0 ] || return 0
    scancel "${jobs[@]}" 2>/dev/null || true
    # tasks that ignore SIGTERM get SIGKILL after KillWait
    while [ -n "$(squeue -h -o %A 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do
        sleep 0.3
    done
}

# Processes on this machine that belong to the cluster's jobs or still talk
# to it: Slurm clients (srun, salloc, ...) with SLURM_CONF pointing at our
# slurm.conf, which would wait forever for a controller that is gone, and
# what salloc started locally (SLURM_CONF and SLURM_JOB_ID both set).  Our
# own ancestors (stop run from inside an salloc shell) are spared.
client_pids() {
    local p pid comm
    local -A spare=()
    pid=$$
    while [ -n "$pid" ] && [ "$pid" -gt 1 ]; do
        spare[$pid]=1
        pid=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null) || break
    done
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ -n "${spare[$pid]:-}" ] && continue
        grep -qzxF "SLURM_CONF=$CONF" "$p/environ" 2>/dev/null || continue
        comm=$(cat "$p/comm" 2>/dev/null) || continue
        case "$comm" in
            srun|salloc|sbatch|sattach|scontrol|squeue|sinfo|scancel|sacct) ;;
            *) grep -qz '^SLURM_JOB_ID=' "$p/environ" 2>/dev/null || continue ;;
        esac
        printf '%s\n' "$pid"
    done
    return 0
}

kill_clients() {
    local pids
    mapfile -t pids < <(client_pids)
    [ ${#pids[@]} -gt 0 ] || return 0
    kill -TERM "${pids[@]}" 2>/dev/null || true
    wait_gone 3 "${pids[@]}" && return 0
    kill -KILL "${pids[@]}" 2>/dev/null || true
    wait_gone 3 "${pids[@]}" || warn "client processes left: ${pids[*]}"
}

cmd_stop() {
    need_root
    local t0=$EPOCHREALTIME pids=() f pid rest
    [ -d "$RUN" ] || { log "nothing to stop (no $RUN)"; return 0; }
    # cancel jobs first so that steps and sruns end cleanly (best effort)
    if pid_of "$CTLD_PID" slurmctld >/dev/null; then
        cancel_jobs
    fi
    for f in "$RUN"/slurmd.*.pid; do
        [ -e "$f" ] || continue
        pid=$(pid_of "$f" slurmd) && { kill -TERM "$pid" 2>/dev/null || true; pids+=("$pid"); }
    done
    pid=$(pid_of "$CTLD_PID" slurmctld) && { kill -TERM "$pid" 2>/dev/null || true; pids+=("$pid"); }
    if [ ${#pids[@]} -gt 0 ] && ! wait_gone "$TIMEOUT" "${pids[@]}"; then
        warn "daemons did not exit after ${TIMEOUT}s, killing them"
        kill -KILL "${pids[@]}" 2>/dev/null || true
        wait_gone 5 "${pids[@]}" || true
    fi
    # leftovers in the nodes' namespaces: slurmstepd and tasks
    mapfile -t rest < <(ns_pids)
    if [ ${#rest[@]} -gt 0 ]; then
        kill -TERM "${rest[@]}" 2>/dev/null || true
        if ! wait_gone 5 "${rest[@]}"; then
            mapfile -t rest < <(ns_pids)
            if [ ${#rest[@]} -gt 0 ]; then
                kill -KILL "${rest[@]}" 2>/dev/null || true
                wait_gone 5 "${rest[@]}" || warn "processes left: ${rest[*]}"
            fi
        fi
    fi
    kill_clients
    stop_munge
    hosts_remove
    # The private /tmp and /dev/shm mounts went away with their namespaces;
    # clear what the nodes left in their /tmp directories.
    rm -f "$RUN"/*.pid "$RUN"/*.mntns "$RUN"/munged.err "$PARAMS"
    for f in "$NODEDIR"/*/tmp; do
        [ -d "$f" ] && find "$f" -mindepth 1 -delete 2>/dev/null
    done
    if [ ${#pids[@]} -gt 0 ]; then
        log "stopped in $(elapsed "$t0")s"
    else
        log "was not running; cleaned up in $(elapsed "$t0")s"
    fi
}

cmd_status() {
    local rc=0 f name pid n
    if [ ! -r "$PARAMS" ]; then
        log "not running (state dir $STATE_DIR)"
        return 3
    fi
    n=$(load_param NODES)
    if pid=$(pid_of "$CTLD_PID" slurmctld); then
        printf 'slurmctld  running  pid %s\n' "$pid"
    else
        printf 'slurmctld  DOWN\n'; rc=1
    fi
    for i in $(seq "$n"); do
        name=$(node_name "$i")
        f=$RUN/slurmd.$name.pid
        if pid=$(pid_of "$f" slurmd); then
            printf 'slurmd %-4s running  pid %s\n' "$name" "$pid"
        else
            printf 'slurmd %-4s DOWN\n' "$name"; rc=1
        fi
    done
    if munge_works; then
        printf 'munge      running%s\n' "$( [ -s "$RUN/munged.started" ] && echo ' (started by vcluster)')"
    else
        printf 'munge      DOWN\n'; rc=1
    fi
    printf 'SLURM_CONF=%s\n' "$CONF"
    sinfo 2>&1 || rc=1
    return $rc
}

cmd_env() {
    if [ -n "$SLURM_PREFIX" ]; then
        printf 'export PATH=%q:"$PATH"\n' "$SLURM_PREFIX/bin:$SLURM_PREFIX/sbin"
    fi
    cat <<EOF
export SLURM_CONF=$CONF
export OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_oob_tcp_if_include=lo
EOF
}

cmd_adduser() {
    need_root
    if ! id "$TEST_USER" >/dev/null 2>&1; then
        mkdir -p "$STATE_DIR/home"
        chmod 755 "$STATE_DIR" "$STATE_DIR/home"
        useradd --create-home --home-dir "$STATE_DIR/home/$TEST_USER" \
            --shell /bin/bash "$TEST_USER" || die "useradd failed"
        log "created user $TEST_USER (home $STATE_DIR/home/$TEST_USER)"
    else
        log "user $TEST_USER exists"
    fi
}

# ---- main ------------------------------------------------------------------
[ $# -ge 1 ] || { usage >&2; exit 2; }
CMD=$1
shift
while [ $# -gt 0 ]; do
    case "$1" in
        -n|--nodes)       NODES=${2:?}; shift ;;
        -c|--cpus)        CPUS=${2:?}; shift ;;
        -w|--tree-width)  TREE_WIDTH=${2:?}; shift ;;
        -p|--plugin-dir)  PLUGIN_DIR=${2:?}; shift ;;
        --slurm)          SLURM_PREFIX=${2:?}; SLURM_GIVEN=1; shift ;;
        --slurm=*)        SLURM_PREFIX=${1#*=}; SLURM_GIVEN=1 ;;
        -s|--state-dir)   STATE_DIR=${2:?}; shift ;;
        --port-base)      PORT_BASE=${2:?}; shift ;;
        -t|--timeout)     TIMEOUT=${2:?}; shift ;;
        --restart)        RESTART=1 ;;
        --mpi-conf)       MPI_CONF=${2:?}; shift ;;
        -d|--debug)       DEBUG=${2:?}; shift ;;
        --mpi-conf=*)     MPI_CONF=${1#*=} ;;
        --debug=*)        DEBUG=${1#*=} ;;
        --hosts)          ADD_HOSTS=1 ;;
        --no-hosts)       ADD_HOSTS=0 ;;
        --nodes=*)        NODES=${1#*=} ;;
        --cpus=*)         CPUS=${1#*=} ;;
        --tree-width=*)   TREE_WIDTH=${1#*=} ;;
        --plugin-dir=*)   PLUGIN_DIR=${1#*=} ;;
        --state-dir=*)    STATE_DIR=${1#*=} ;;
        --port-base=*)    PORT_BASE=${1#*=} ;;
        --timeout=*)      TIMEOUT=${1#*=} ;;
        -h|--help)        usage; exit 0 ;;
        *) die "unknown option '$1' (see '$PROG help')" ;;
    esac
    shift
done

for v in NODES CPUS TREE_WIDTH PORT_BASE TIMEOUT; do
    case "${!v}" in ''|*[!0-9]*) die "$v must be a positive integer" ;; esac
    [ "${!v}" -gt 0 ] || die "$v must be a positive integer"
done
if [ -n "$PLUGIN_DIR" ]; then
    PLUGIN_DIR=$(cd "$PLUGIN_DIR" 2>/dev/null && pwd) || die "no such plugin directory"
    case "$PLUGIN_DIR/" in
        /tmp/*|/dev/shm/*) die "plugin directory must not be under /tmp or /dev/shm (each node has its own: its slurmd would not see it)" ;;
    esac
fi
if [ -n "$MPI_CONF" ]; then
    [ -r "$MPI_CONF" ] || die "cannot read $MPI_CONF"
fi
set_paths
# The Slurm to run: --slurm (or SLURMIX_VCLUSTER_SLURM) for start, else
# the one the running cluster was started with.
if [ "$SLURM_GIVEN" -eq 0 ] && [ "$CMD" != start ] && [ "$CMD" != restart ] &&
    [ -r "$PARAMS" ]; then
    SLURM_PREFIX=$(load_param SLURM || true)
fi
if [ -n "$SLURM_PREFIX" ]; then
    SLURM_PREFIX=$(cd "$SLURM_PREFIX" 2>/dev/null && pwd) || die "--slurm: no such directory"
    for f in sbin/slurmctld sbin/slurmd sbin/slurmstepd bin/srun bin/sinfo; do
        [ -x "$SLURM_PREFIX/$f" ] || die "--slurm $SLURM_PREFIX: no $f there (not a Slurm installation prefix?)"
    done
    export PATH=$SLURM_PREFIX/bin:$SLURM_PREFIX/sbin:$PATH
fi

case "$CMD" in
    start)   cmd_start ;;
    stop)    cmd_stop ;;
    restart) RESTART=1; cmd_start ;;
    status)  cmd_status ;;
    env)     cmd_env ;;
    adduser) cmd_adduser ;;
    help|-h|--help) usage ;;
    *) usage >&2; exit 2 ;;
esac
