# SPDX-License-Identifier: BSD-3-Clause
"""poke_agent.py - hand-made requests to srun's agent, for the cluster
suites' broken-request cases (imported by their python3 -c snippets, run
in a task of the step, which has SLURMIX_SRUN_PORT; the job key is read
from the job directory, as the task's user may: tasks do not get it in
their environment).

frame() is the core's wire frame (magic, length, tag 7, cmd, flags);
pstr/u8/u32/size/proc encode single items as the core's codec does
(src/pmix_core/common/pack.c). send() opens a connection, does the
handshake of src/plugin/lib/auth.h (claim: the request's kind), sends one
frame and prints "reply CMD status N" or, when srun closes without a
reply (a failed handshake too), "closed CMD". A body that starts with a
packed 32-character key names the key the handshake proves (the requests
carried the key in clear before): it is not sent.
"""
import hashlib
import hmac
import os
import socket
import struct


def job_key():
    path = "%s/slurmix-%d/job.%s/key" % (os.environ.get("SLURMIX_JOBDIR_BASE", "/tmp"),
                                         os.getuid(), os.environ.get("SLURM_JOB_ID", "?"))
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


KEY = job_key()


def frame(cmd, body):
    return struct.pack(">IIIHH", 0x534c4d58, len(body), 7, cmd, 0) + body


def pstr(v):
    b = v.encode()
    return struct.pack(">HII", 3, 1, len(b)) + b


def u32(v):
    return struct.pack(">HII", 14, 1, v)


def u8(v):
    return struct.pack(">HIB", 12, 1, v)


def size(v):
    return struct.pack(">HIQ", 4, 1, v)


def proc(nspace, rank):
    b = nspace.encode()
    return struct.pack(">HII", 22, 1, len(b)) + b + struct.pack(">I", rank)


def recv_frame(s):
    """(cmd, payload) of the next frame, or None when srun closed."""
    def exactly(n):
        b = b""
        while len(b) < n:
            got = s.recv(n - len(b))
            if not got:
                return None
            b += got
        return b
    try:
        hdr = exactly(16)
        if hdr is None:
            return None
        n, cmd = struct.unpack(">I", hdr[4:8])[0], struct.unpack(">H", hdr[12:14])[0]
        body = exactly(n) if n else b""
    except OSError:
        return None
    return None if body is None else (cmd, body)


def handshake(s, key, kind):
    """lib/auth.h's connector side: True once srun proved the key back."""
    f = recv_frame(s)
    if f is None or f[0] != 7 or len(f[1]) != 32:
        return False
    na, nc = f[1], os.urandom(32)
    claim = struct.pack(">III", kind, 0xFFFFFFFF, 0xFFFFFFFF)

    def mac(role):
        return hmac.new(key.encode(), b"slurmix auth 1" + role + na + nc + claim,
                        hashlib.sha256).digest()
    s.sendall(struct.pack(">IIIHH", 0x534c4d58, 76, 0, 8, 0) + nc + claim + mac(b"C"))
    f = recv_frame(s)
    return f is not None and f[0] == 9 and hmac.compare_digest(f[1], mac(b"A"))


def request(cmd, body, timeout=10):
    """A fresh connection to srun's agent with body sent as request cmd
    after the handshake; None when srun refused the handshake."""
    key = KEY
    if body[:10] == struct.pack(">HII", 3, 1, 32):
        key, body = body[10:42].decode(), body[42:]
    s = socket.create_connection(("127.0.0.1", int(os.environ["SLURMIX_SRUN_PORT"])))
    s.settimeout(timeout)
    if not handshake(s, key, cmd):
        s.close()
        return None
    s.sendall(frame(cmd, body))
    return s


def send(cmd, body):
    s = request(cmd, body)
    if s is None:
        print("closed", cmd)
        return
    r = s.recv(100)
    if len(r) >= 26:
        print("reply", cmd, "status", struct.unpack(">i", r[22:26])[0])
    else:
        print("closed", cmd)
    s.close()
