# SPDX-License-Identifier: BSD-3-Clause
# peer_garbage.py - an AUTHENTICATED but broken peer for the step daemons
# (run_cluster_tests.sh, "authenticated peer sends garbage").
#
#   python3 peer_garbage.py KEY STEP NNODES NODE:PORT...
#
# For each step daemon (node index NODE listening on 127.0.0.1:PORT) it
# opens two connections, each starting with a correct HELLO (job key, node
# id, step id; src/plugin/net/transport.h): one claiming another node of the
# step, one claiming a stepd of another step of the job. On each it sends
# the stepd-to-stepd messages with broken payloads: LOST, FANIN, FANOUT,
# CONTRIB (truncated, or well formed for a fence that does not exist), DMDX_REQ,
# DMDX_RESP, EVENT garbage, EVENT_FWD (truncated, a range that never
# travels, an absurd info count, a synchronous one whose wait is wrong),
# EVENT_ACK (truncated, for no event), HOLD (no step of the job), EVREG
# (truncated, a node out of range, no codes; from another step: refused
# whatever it says), EVLOST (truncated, a count of 0), IOF_SUB (truncated,
# too many entries, a rank or channel the node does not have), IOF_READY
# for no pull, IOF_DATA (truncated, a rank the sender does not hold), EXITS
# and PIDS (truncated, a rank out of range), PIDS_REQ, STDIN (truncated,
# counts out of range, another step's, a rank out of range) and
# STDIN_ACK (truncated, for no push), JOBCTL (truncated, a signal or a rank
# out of range) and JOBCTL_ACK (for no request), an unknown command, and
# last a frame header
# with an absurd length. It never sends a well-formed LOST (that would
# rightly fail the step's fences). Prints "SENT n" (messages sent) and
# closes everything before the tasks' fences start. With JOB (the job id)
# in the environment as SLURMIX_GARBAGE_JOB, also a HOLD naming another
# step of the job with a job information blob that does not unpack.
#
#   python3 peer_garbage.py sync-ack KEY STEP NODE:PORT
#
# claims node 1 to the stepd of node 0 and, for 4 s, sends every 50 ms an
# EVENT_ACK for that stepd's first forwarded event (tag 1) whose status
# is fine but whose synchronous part is garbage (until the stepd closes
# the connection): sent while node 0 waits for a synchronous event, it
# must count node 1's ranks as silent.
#
#   python3 peer_garbage.py tool-attach KEY STEP UID NODE:PORT
#
# opens fresh connections to that stepd whose first message is a broken
# TOOL_ATTACH (run_iof_tests.sh, "tool: broken attach requests"): a wrong
# key, an empty and a truncated payload, another step, another user (UID
# is the job's: UID + 1 is not). Each must be closed without the one-byte
# answer. Prints "ATTACH refused=N of M".
import os
import socket
import struct
import sys
import time

T_BOOL, T_STRING, T_SIZE, T_UINT32, T_UINT64, T_STATUS, T_PROC = 1, 3, 4, 14, 15, 20, 22
HELLO, TABLE, FANIN, FANOUT, DMDX_REQ, DMDX_RESP, LOST, EVENT = 1, 3, 10, 11, 20, 21, 30, 31
CONTRIB = 12
NODE_DOWN = 34
HOLD = 37
EVREG = 38
EVLOST = 39
IOF_SUB, IOF_READY, IOF_DATA = 22, 23, 24
TOOL_ATTACH = 61
EXITS, PIDS_REQ, PIDS = 25, 26, 27
STDIN, STDIN_ACK = 28, 29
JOBCTL, JOBCTL_ACK = 13, 14
T_UINT16 = 13
EVENT_FWD, EVENT_ACK = 32, 33
T_INFO, T_DATA_RANGE, T_BYTE_OBJECT = 24, 33, 27
USER_CODE = -3007


def frame(cmd, body, tag=0):
    return struct.pack(">IIIHH", 0x534c4d58, len(body), tag, cmd, 0) + body


def item(t, fmt, *v):
    return struct.pack(">HI", t, 1) + struct.pack(">" + fmt, *v)


def pstr(s):
    b = s.encode()
    return struct.pack(">HII", T_STRING, 1, len(b)) + b


def u32(v):
    return item(T_UINT32, "I", v)


def u64(v):
    return item(T_UINT64, "Q", v)


def status(v):
    return item(T_STATUS, "i", v)


def proc(ns, rank):
    b = ns.encode()
    return struct.pack(">HII", T_PROC, 1, len(b)) + b + struct.pack(">I", rank)


def info(key, t, fmt, v):
    k = key.encode()
    return struct.pack(">I", len(k)) + k + struct.pack(">IH", 0, t) + struct.pack(">" + fmt, v)


def infos(*each):
    if not each:
        return item(T_SIZE, "Q", 0)
    return item(T_SIZE, "Q", len(each)) + struct.pack(">HI", T_INFO, len(each)) + b"".join(each)


def sync_fwd(value_type, fmt, ms, tag):
    """A synchronous EVENT_FWD (range NAMESPACE) whose wait is ms."""
    return (EVENT_FWD, status(USER_CODE) + proc("slurmix.1.0", 0) + item(T_DATA_RANGE, "B", 3) +
            infos(info("slurmix.ev.sync.ms", value_type, fmt, ms)), tag)


JUNK = b"\xde\xad\xbe\xef" * 8 + b"not packed at all"
SIG = 0x0123456789ABCDEF


def broken_messages():
    """(cmd, payload, tag) of every broken message."""
    return [
        (LOST, b"", 0), (LOST, u32(1), 0), (LOST, u32(1) + status(0), 0),
        (LOST, u32(999999) + status(-1), 0), (LOST, JUNK, 0),
        (LOST, u32(1) + JUNK[:5], 0),
        (NODE_DOWN, b"", 0), (NODE_DOWN, u32(999999), 0), (NODE_DOWN, u32(1) + JUNK, 0),
        (LOST, u32(1) + status(-8), 0),  # an abort without its exit code
        (LOST, u32(1) + status(-8) + u32(3), 0),  # ... or with one of another type
        (LOST, u32(1) + status(-402), 0),  # killed by a signal, no exit code
        (LOST, u32(1) + status(-200) + u32(3), 0),  # an exit code of another type
        (FANIN, b"", 0), (FANIN, u64(SIG), 0), (FANIN, u64(SIG) + u32(0), 0),
        (FANIN, JUNK, 0), (FANIN, u64(SIG) + u32(7) + status(0) + JUNK, 0),
        (FANIN, u64(SIG + 1) + u32(7) + status(-25), 0),
        (CONTRIB, b"", 0), (CONTRIB, JUNK, 0),
        (FANOUT, b"", 0), (FANOUT, u64(SIG)[:7], 0), (FANOUT, JUNK, 0),
        (FANOUT, u64(SIG + 2) + u32(3) + status(0) + JUNK, 0),
        (DMDX_REQ, b"", 5), (DMDX_REQ, JUNK, 6), (DMDX_REQ, u32(999999), 7),
        (DMDX_REQ, u32(1) + JUNK[:3], 8),
        (DMDX_RESP, b"", 9), (DMDX_RESP, JUNK, 10), (DMDX_RESP, status(0) + JUNK, 11),
        (EVENT, b"", 0), (EVENT, JUNK, 0), (EVENT, proc("x" * 300, 0), 0),
        (EVENT, proc("slurmix.1.0", 0) + struct.pack(">HI", T_SIZE, 1) +
         struct.pack(">Q", 1 << 40), 0),
        (EVENT, proc("slurmix.1.0", 0) + struct.pack(">HIQ", T_SIZE, 1, 0) +
         status(-1) + JUNK, 0),
        (EVENT_FWD, b"", 3), (EVENT_FWD, JUNK, 4), (EVENT_FWD, status(USER_CODE), 5),
        (EVENT_FWD, status(USER_CODE) + proc("slurmix.1.0", 0), 6),
        # range LOCAL never travels: refused
        (EVENT_FWD, status(USER_CODE) + proc("slurmix.1.0", 0) +
         item(T_DATA_RANGE, "B", 2) + struct.pack(">HI", T_INFO, 0), 7),
        # an absurd number of infos
        (EVENT_FWD, status(USER_CODE) + proc("slurmix.1.0", 0) +
         item(T_DATA_RANGE, "B", 3) + struct.pack(">HI", T_INFO, 1 << 30), 8),
        (EVENT_ACK, b"", 9), (EVENT_ACK, JUNK, 10),
        (EVENT_ACK, status(0), 12345),      # an answer to nothing we sent
        # synchronous: a wait of the wrong type, or of 0 ms (logged); a
        # right one of 1 ms (served: answered); an answer with the sync
        # part to nothing
        sync_fwd(T_STATUS, "i", 5, 13), sync_fwd(T_UINT32, "I", 0, 14),
        sync_fwd(T_UINT32, "I", 1, 15),
        # an abort of procs of this step without its exit code (logged)
        (EVENT_FWD, status(-8) + proc("slurmix.1.0", 0) + item(T_DATA_RANGE, "B", 6) +
         infos(info("slurmix.abort.kill", T_BOOL, "B", 1)), 16),
        (EVENT_ACK, status(0) + u32(1) + infos(), 12346),
        # HOLD: empty, garbage, no step name, a step of another job
        (HOLD, b"", 0), (HOLD, JUNK, 0), (HOLD, pstr("nonsense"), 0),
        (HOLD, pstr("slurmix.999999999.3"), 0),
        # EVREG: empty, garbage, a node out of range, neither every code
        # nor any code, truncated after the flag
        (EVREG, b"", 0), (EVREG, JUNK, 0),
        (EVREG, u32(999999) + item(T_BOOL, "B", 1) + item(T_SIZE, "Q", 0), 0),
        (EVREG, u32(1) + item(T_BOOL, "B", 0) + item(T_SIZE, "Q", 0), 0),
        (EVREG, u32(1) + item(T_BOOL, "B", 0), 0),
        # EVLOST: empty, garbage, a count of 0
        (EVLOST, b"", 0), (EVLOST, JUNK, 0), (EVLOST, u32(0), 0),
        # IOF_SUB: empty, garbage, more entries than the node has tasks, a
        # rank out of range, a channel that is none; IOF_READY for no pull;
        # IOF_DATA: empty, garbage, a rank the sender does not hold
        (IOF_SUB, b"", 1), (IOF_SUB, JUNK, 2), (IOF_SUB, u32(1 << 30), 3),
        (IOF_SUB, u32(1) + u32(999999) + item(T_UINT16, "H", 1), 4),
        (IOF_SUB, u32(1) + u32(0) + item(T_UINT16, "H", 8), 5),
        (IOF_READY, b"", 777),
        (IOF_DATA, b"", 0), (IOF_DATA, JUNK, 0),
        (IOF_DATA, u32(999999) + item(T_UINT16, "H", 1) + item(T_BOOL, "B", 0) + u64(0) +
         struct.pack(">HIQ", T_BYTE_OBJECT, 1, 3) + b"abc", 0),
        # EXITS: empty, garbage, a rank out of range
        (EXITS, b"", 0), (EXITS, JUNK, 0), (EXITS, u32(999999) + u32(3) + u32(0), 0),
        # PIDS: empty, garbage, a rank out of range; PIDS_REQ (answered
        # to the node it claims to be: harmless)
        (PIDS, b"", 0), (PIDS, JUNK, 0), (PIDS, u32(1) + u32(999999) + u32(5), 0),
        (PIDS_REQ, b"", 0),
        (TABLE, b"", 0), (TABLE, JUNK, 0),   # the step has its table: dropped
        (99, JUNK, 0),
    ]


def held_blob_messages():
    """A HOLD of another step of the job whose blob does not unpack."""
    job = os.environ.get("SLURMIX_GARBAGE_JOB")
    if not job:
        return []
    blob = JUNK
    return [(HOLD, pstr("slurmix.%s.4243" % job) + struct.pack(">HIQ", T_BYTE_OBJECT, 1,
                                                               len(blob)) + blob, 0)]


def ranks(*r):
    return struct.pack(">HI", T_UINT32, len(r)) + b"".join(struct.pack(">I", x) for x in r)


def stdin_messages(step):
    """STDIN: empty, garbage, 0 ranks, more ranks than the node has, fewer
    ranks than it says, no end flag; well formed for another step, and
    (JOB known) for this step but a rank out of range. STDIN_ACK: empty,
    garbage, for no push. None of them puts a byte into a task."""
    job = os.environ.get("SLURMIX_GARBAGE_JOB", "999999998")
    ns = "slurmix.%s.%d" % (job, step)
    bo = item(T_BOOL, "B", 0) + struct.pack(">HIQ", T_BYTE_OBJECT, 1, 1) + b"x"
    msgs = [
        (STDIN, b"", 1), (STDIN, JUNK, 2), (STDIN, pstr(ns) + u32(0), 3),
        (STDIN, pstr(ns) + u32(1 << 20), 4), (STDIN, pstr(ns) + u32(2) + ranks(0), 5),
        (STDIN, pstr(ns) + u32(1) + ranks(0), 6),
        (STDIN, pstr("slurmix.999999999.3") + u32(1) + ranks(0) + bo, 7),
        (STDIN_ACK, b"", 9), (STDIN_ACK, JUNK, 10), (STDIN_ACK, status(0), 12347),
    ]
    if "SLURMIX_GARBAGE_JOB" in os.environ:
        msgs.append((STDIN, pstr(ns) + u32(1) + ranks(999999) + bo, 8))
    return msgs


def jobctl_messages(step):
    """JOBCTL: empty, garbage; for this step (JOB known, else a step of no
    job, answered NOT_FOUND unlogged): signal 0, a signal out of range, no
    ranks, fewer ranks than it says, a rank out of range (none may signal
    a task); with the part after the ranks (to every rank of the node, so
    that only that part is wrong): a kind out of range, a pause without a
    wait, a truncated one, a checkpoint with a signal, a wait over an hour;
    JOBCTL_ACK: empty, for no request."""
    job = os.environ.get("SLURMIX_GARBAGE_JOB", "999999998")
    ns = pstr("slurmix.%s.%d" % (job, step))
    i32 = lambda v: struct.pack(">HIi", 9, 1, v)
    u8 = lambda v: item(12, "B", v)
    who = proc("slurmix.%s.%d" % (job, step), 0)
    head = lambda sig: ns + i32(sig) + u32(0) + u32(1) + u32(0xFFFFFFFF)
    tail = lambda kind, wait, ck: u8(kind) + who + pstr("l") + u32(wait) + pstr(ck)
    return [
        (JOBCTL, head(0) + tail(9, 1000, ""), 29), (JOBCTL, head(0) + tail(1, 0, ""), 30),
        (JOBCTL, head(0) + u8(1), 31), (JOBCTL, head(10) + tail(2, 1000, "c"), 32),
        (JOBCTL, head(10) + tail(0, 3600001, ""), 33),
        (JOBCTL, b"", 21), (JOBCTL, JUNK, 22), (JOBCTL, ns + i32(0) + u32(0) + u32(1) + u32(0), 23),
        (JOBCTL, ns + i32(999) + u32(0) + u32(1) + u32(0), 24),
        (JOBCTL, ns + i32(10) + u32(0) + u32(0), 25),
        (JOBCTL, ns + i32(10) + u32(0) + u32(2) + u32(0), 26),
        (JOBCTL, ns + i32(10) + u32(0) + u32(1) + u32(999999), 27),
        (JOBCTL_ACK, b"", 28), (JOBCTL_ACK, status(0), 12348),
    ]


def hello(key, node, step):
    return frame(HELLO, pstr(key) + u32(node) + u32(step))


def poke(port, hello_bytes, step):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    msgs = broken_messages() + held_blob_messages() + stdin_messages(step) + jobctl_messages(step)
    data = hello_bytes + b"".join(frame(c, p, t) for c, p, t in msgs)
    s.sendall(data)
    time.sleep(0.2)
    # last: a header that claims 1 GiB (a protocol error: dropped)
    try:
        s.sendall(struct.pack(">IIIHH", 0x534c4d58, 1 << 30, 0, FANIN, 0))
    except OSError:
        pass
    return s, len(msgs) + 1


def sync_ack(key, step, endpoint):
    port = int(endpoint.split(":")[1])
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(hello(key, 1, step))
    n = 0
    end = time.time() + 4
    while time.time() < end:
        try:
            s.sendall(frame(EVENT_ACK, status(0) + JUNK, 1))
        except OSError:
            break  # the stepd closed it (a garbled answer does) or ended
        n += 1
        time.sleep(0.05)
    s.close()
    print("SENT", n)


def tool_attach(key, step, uid, endpoint):
    port = int(endpoint.split(":")[1])
    cases = [pstr("0" * len(key)) + u32(step) + u32(uid) + u32(uid) + u32(1),
             b"", pstr(key) + u32(step), pstr(key) + u32(step + 1) + u32(uid) + u32(uid) + u32(1),
             pstr(key) + u32(step) + u32(uid + 1) + u32(uid + 1) + u32(1)]
    refused = 0
    for body in cases:
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(frame(TOOL_ATTACH, body))
        try:
            got = s.recv(1)
        except OSError:
            got = b""
        refused += got != b"\x01"
        s.close()
    print("ATTACH refused=%d of %d" % (refused, len(cases)))


def main():
    if sys.argv[1] == "tool-attach":
        tool_attach(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
        return
    if sys.argv[1] == "sync-ack":
        sync_ack(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    key, step, nnodes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    conns, sent = [], 0
    for arg in sys.argv[4:]:
        node, port = (int(x) for x in arg.split(":"))
        other = (node + 1) % nnodes
        for h in (hello(key, other, step), hello(key, 0, step + 4242)):
            s, n = poke(port, h, step)
            conns.append(s)
            sent += n
    time.sleep(1)
    for s in conns:
        s.close()
    print("SENT", sent)


main()
