#!/usr/bin/env bash
# A one-node SLURM cluster on localhost, for testing the SLURM profile without a real
# cluster (tests/slurm/; CI). Needs root and Debian's slurmctld, slurmd, slurm-client
# and munge; no systemd, no accounting database.
#
#   eval "$(tests/slurm/slurm_cluster.sh start)"   # prints: export SLURM_CONF=<dir>/slurm.conf
#   tests/slurm/slurm_cluster.sh status
#   tests/slurm/slurm_cluster.sh stop              # only the daemons it started, by PID
#
# Everything lives in one folder (NSIGHTFLOW_SLURM_DIR, default /tmp/nsightflow-slurm):
# slurm.conf, gres.conf, cgroup.conf, munge key and socket, state, daemon logs, PID
# files, and three job records written by the node itself:
#   jobs.log   prolog/epilog: "start|end JOBID EPOCH_S gpus=IDX partition=P"
#   tasks.log  task prolog:   "task JOBID.STEP EPOCH_S cuda_visible_devices=IDX"
#   jobcomp.log  SLURM's own completion record (jobcomp/filetxt: times, TRES)
#
# The node "localhost" is shaped like a GPU node, not like this machine
# (SlurmdParameters=config_overrides): NSIGHTFLOW_SLURM_CPUS CPUs (default 8),
# NSIGHTFLOW_SLURM_MEM_MB memory (default 65536) and NSIGHTFLOW_SLURM_GPUS fake GPUs
# (default 2) declared as GRES on character devices /dev/nvidia<N> (major 195), made
# with mknod where missing and removed again by stop. SLURM only stats them and then
# sets CUDA_VISIBLE_DEVICES per job; nothing can run a kernel on them.
# Partitions: cpu (default) and gpu, both on that node, as profiles/slurm/ expects.
# MinJobAge=300 keeps finished jobs visible to `squeue --states=all`, which the
# profile's status command relies on (sacct needs the database we do not run).
set -euo pipefail

DIR=${NSIGHTFLOW_SLURM_DIR:-/tmp/nsightflow-slurm}
GPUS=${NSIGHTFLOW_SLURM_GPUS:-2}
CPUS=${NSIGHTFLOW_SLURM_CPUS:-8}
MEM_MB=${NSIGHTFLOW_SLURM_MEM_MB:-65536}
CTLD_PORT=${NSIGHTFLOW_SLURM_CTLD_PORT:-6817}
SLURMD_PORT=${NSIGHTFLOW_SLURM_SLURMD_PORT:-6818}
NODE=localhost
RUN_CONF=/run/slurm/conf

die() { printf 'slurm_cluster: %s\n' "$*" >&2; exit 1; }
say() { printf 'slurm_cluster: %s\n' "$*" >&2; }
fail() { say "$*"; stop; exit 1; } # undo a half-done start

alive() { # PIDFILE -> 0 when the process it names runs
    [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

wait_pidfile() { # PIDFILE NAME: a forking daemon writes its PID file shortly after
    for _ in $(seq 50); do alive "$1" && return 0; sleep 0.1; done
    say "$2 did not start"
    return 1
}

write_configs() {
    mkdir -p "$DIR"/{state,spool,munge}
    chmod 700 "$DIR/munge"
    cat >"$DIR/slurm.conf" <<EOF
# Written by tests/slurm/slurm_cluster.sh: one node on localhost, for tests only.
ClusterName=nsightflow
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups (a container may not delegate them): plain process tracking, no task
# containment; GPUs are still handed out one job at a time through GRES.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/jobcomp.log
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
# Start jobs within about a second: the defaults (a 3 s batch delay, backfill every
# 30 s) leave CPU jobs queued behind GPU jobs waiting for a GPU on the same node.
SchedulerParameters=batch_sched_delay=0,bf_interval=1,bf_continue,sched_interval=5
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
# Without a default, a job with no --mem takes the whole node and jobs run one by one.
DefMemPerCPU=1000
# Finished jobs stay in squeue this long: the profile polls with squeue.
MinJobAge=300
ReturnToService=2
SlurmdParameters=config_overrides
PrologFlags=Alloc
Prolog=$DIR/prolog.sh
Epilog=$DIR/epilog.sh
TaskProlog=$DIR/task_prolog.sh
NodeName=$NODE NodeAddr=127.0.0.1 NodeHostname=$NODE CPUs=$CPUS RealMemory=$MEM_MB Gres=gpu:$GPUS State=UNKNOWN
PartitionName=cpu Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=$NODE Default=NO MaxTime=INFINITE State=UP
EOF
    cat >"$DIR/gres.conf" <<EOF
NodeName=$NODE Name=gpu File=/dev/nvidia[0-$((GPUS - 1))]
EOF
    cat >"$DIR/cgroup.conf" <<EOF
# slurm.conf loads no cgroup plugin (proctrack/linuxproc, task/none), so nothing here
# is enforced: a job could open any /dev/nvidia*, and CUDA_VISIBLE_DEVICES is what keeps
# it to its GPU. A real GPU node sets ConstrainDevices=yes with task/cgroup.
CgroupPlugin=autodetect
ConstrainDevices=no
EOF
    # Job records, written by the node: prolog and epilog run as root around each job
    # (PrologFlags=Alloc: at allocation), the task prolog before each task.
    cat >"$DIR/prolog.sh" <<EOF
#!/bin/sh
echo "start \$SLURM_JOB_ID \$(date +%s.%N) gpus=\${SLURM_JOB_GPUS:-} partition=\${SLURM_JOB_PARTITION:-}" >>"$DIR/jobs.log"
EOF
    cat >"$DIR/epilog.sh" <<EOF
#!/bin/sh
echo "end \$SLURM_JOB_ID \$(date +%s.%N) gpus=\${SLURM_JOB_GPUS:-} partition=\${SLURM_JOB_PARTITION:-}" >>"$DIR/jobs.log"
EOF
    cat >"$DIR/task_prolog.sh" <<EOF
#!/bin/sh
echo "task \$SLURM_JOB_ID.\${SLURM_STEP_ID:-batch} \$(date +%s.%N) cuda_visible_devices=\${CUDA_VISIBLE_DEVICES:-}" >>"$DIR/tasks.log"
EOF
    chmod 755 "$DIR"/prolog.sh "$DIR"/epilog.sh "$DIR"/task_prolog.sh
    : >"$DIR/jobs.log"
    : >"$DIR/tasks.log"
}

make_fake_gpus() {
    : >"$DIR/created_devices"
    for ((i = 0; i < GPUS; i++)); do
        dev=/dev/nvidia$i
        if [ -e "$dev" ]; then
            [ -c "$dev" ] || { say "$dev exists and is not a character device"; return 1; }
        else
            mknod -m 666 "$dev" c 195 "$i" || { say "cannot create $dev (mknod)"; return 1; }
            echo "$dev" >>"$DIR/created_devices"
        fi
    done
}

start_munge() {
    [ -s "$DIR/munge/munge.key" ] || {
        dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
        chmod 400 "$DIR/munge/munge.key"
    }
    # --force: munged otherwise refuses a socket in a folder closed to other users
    # (this one is 0700: the key lies beside the socket).
    munged --force --key-file="$DIR/munge/munge.key" \
        --socket="$DIR/munge/munge.socket" --pid-file="$DIR/munge/munged.pid" \
        --log-file="$DIR/munge/munged.log" --seed-file="$DIR/munge/munged.seed" >&2 &&
        wait_pidfile "$DIR/munge/munged.pid" munged
}

wait_idle() { # until sinfo shows the node idle, at most 60 s
    local state="" deadline=$((SECONDS + 60))
    while [ "$SECONDS" -lt "$deadline" ]; do
        alive "$DIR/slurmctld.pid" || { say "slurmctld is not running"; break; }
        alive "$DIR/slurmd.pid" || { say "slurmd is not running"; break; }
        state=$(SLURM_CONF="$DIR/slurm.conf" timeout 5 sinfo -h -n "$NODE" -o %t 2>/dev/null | head -1 || true)
        case "$state" in idle | mix | alloc) return 0 ;; esac
        sleep 0.5
    done
    say "node $NODE not idle (state: '${state:-unreachable}'); logs:"
    tail -n 20 "$DIR/slurmctld.log" "$DIR/slurmd.log" >&2 || true
    return 1
}

start() {
    [ "$(id -u)" = 0 ] || die "start needs root (daemons, mknod)"
    [ "$GPUS" -ge 1 ] || die "NSIGHTFLOW_SLURM_GPUS must be 1 or more"
    for cmd in munged slurmctld slurmd sinfo; do
        command -v "$cmd" >/dev/null || die "$cmd not found: apt-get install slurmctld slurmd slurm-client munge"
    done
    for pidfile in "$DIR/munge/munged.pid" "$DIR/slurmctld.pid" "$DIR/slurmd.pid"; do
        if alive "$pidfile"; then die "already running ($pidfile); stop it first"; fi
    done
    [ ! -e /etc/slurm/slurm.conf ] ||
        die "/etc/slurm/slurm.conf exists: SLURM is set up here; this cluster is for machines without one"
    [ ! -e "$RUN_CONF" ] || [ "$(readlink "$RUN_CONF")" = "$DIR" ] ||
        die "$RUN_CONF exists (a configless slurmd runs here?)"
    rm -rf "$DIR/state" "$DIR/spool" "$DIR"/*.log "$DIR/munge/munged.log"
    write_configs
    # Inside a job the SLURM executor plugin runs `srun` with every SLURM_* variable
    # removed, SLURM_CONF included; srun then looks where a configless slurmd keeps
    # its copy of the configuration.
    if [ ! -d "$(dirname "$RUN_CONF")" ]; then
        mkdir -p "$(dirname "$RUN_CONF")"
        dirname "$RUN_CONF" >"$DIR/created_run_dir"
    fi
    ln -sfn "$DIR" "$RUN_CONF"
    make_fake_gpus || fail "no fake GPUs"
    start_munge || fail "munged did not start; see $DIR/munge/munged.log"
    export SLURM_CONF="$DIR/slurm.conf"
    # Both daemons fork and write their PID files; -c: start with no saved state.
    if ! { slurmctld -c -f "$SLURM_CONF" >&2 && wait_pidfile "$DIR/slurmctld.pid" slurmctld; }; then
        tail -n 20 "$DIR/slurmctld.log" >&2 || true
        fail "slurmctld did not start"
    fi
    if ! { slurmd -N "$NODE" -f "$SLURM_CONF" >&2 && wait_pidfile "$DIR/slurmd.pid" slurmd; }; then
        tail -n 20 "$DIR/slurmd.log" >&2 || true
        fail "slurmd did not start"
    fi
    wait_idle || fail "cluster did not come up"
    say "up: node $NODE, $CPUS CPUs, $MEM_MB MB, $GPUS fake GPUs; partitions cpu (default), gpu"
    echo "export SLURM_CONF=$SLURM_CONF"
}

stop_pid() { # PIDFILE NAME: TERM, wait up to 10 s, then KILL
    local pidfile=$1 name=$2 pid
    [ -s "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            say "$name ($pid) ignored TERM; killing"
            kill -KILL "$pid" 2>/dev/null || true
        fi
        say "stopped $name ($pid)"
    fi
    rm -f "$pidfile"
}

stop() {
    # Jobs still running would outlive slurmd as orphaned slurmstepd processes.
    if alive "$DIR/slurmctld.pid"; then
        SLURM_CONF="$DIR/slurm.conf" scancel --full -u "$(id -un)" 2>/dev/null || true
    fi
    stop_pid "$DIR/slurmd.pid" slurmd
    stop_pid "$DIR/slurmctld.pid" slurmctld
    stop_pid "$DIR/munge/munged.pid" munged
    if [ "$(readlink "$RUN_CONF" 2>/dev/null)" = "$DIR" ]; then rm -f "$RUN_CONF"; fi
    if [ -s "$DIR/created_run_dir" ]; then
        rmdir "$(cat "$DIR/created_run_dir")" 2>/dev/null || true
        rm -f "$DIR/created_run_dir"
    fi
    if [ -s "$DIR/created_devices" ]; then
        while read -r dev; do rm -f "$dev"; done <"$DIR/created_devices"
        : >"$DIR/created_devices"
    fi
}

status() {
    for pidfile in "$DIR/munge/munged.pid" "$DIR/slurmctld.pid" "$DIR/slurmd.pid"; do
        if alive "$pidfile"; then echo "running: $pidfile ($(cat "$pidfile"))"; else echo "stopped: $pidfile"; fi
    done
    SLURM_CONF="$DIR/slurm.conf" sinfo 2>&1 || true
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
*) die "usage: $0 start|stop|status   (folder: \$NSIGHTFLOW_SLURM_DIR, default /tmp/nsightflow-slurm)" ;;
esac
