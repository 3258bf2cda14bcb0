# SPDX-License-Identifier: BSD-3-Clause
"""poke_agent.py - hand-made requests to srun's agent, for the cluster
suites' broken-request cases (imported by their python3 -c snippets, run
in a task of the step, which has SLURMIX_SRUN_PORT and SLURMIX_STEP_KEY).

frame() is the core's wire frame (magic, length, tag 7, cmd, flags);
pstr/u8/u32/size/proc encode single items as the core's codec does
(src/pmix_core/common/pack.c). send() opens a connection, sends one frame
and prints "reply CMD status N" or, when srun closes without a reply,
"closed CMD".
"""
import os
import socket
import struct

KEY = os.environ.get("SLURMIX_STEP_KEY", "")


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


def send(cmd, body):
    s = socket.create_connection(("127.0.0.1", int(os.environ["SLURMIX_SRUN_PORT"])))
    s.settimeout(10)
    s.sendall(frame(cmd, body))
    r = s.recv(100)
    if len(r) >= 26:
        print("reply", cmd, "status", struct.unpack(">i", r[22:26])[0])
    else:
        print("closed", cmd)
    s.close()
