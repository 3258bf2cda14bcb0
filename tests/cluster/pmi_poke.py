#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""pmi_poke.py - a PMI-1 / PMI-2 client that speaks the wire itself on
PMI_FD (src/pmix_core/server/pmi_wire.h), for the cluster tests.

  pmi_poke.py fence1      PMI-1: put, barrier, get every rank's key
  pmi_poke.py fence2      PMI-2: fullinit, kvs-put, kvs-fence, kvs-get of
                          every rank's key (by srcid and without), job and
                          node attributes
  pmi_poke.py broken1     PMI-1 broken requests: each must get rc=-1, and
                          a good request after them must still work
  pmi_poke.py broken2     the same for PMI-2
  pmi_poke.py badlen2     a PMI-2 message with a broken length: the server
                          closes the connection (the framing is lost)
  pmi_poke.py pubsub2     PMI-2 name-publish / lookup / unpublish
  pmi_poke.py fwait2      PMI-2: the last rank fences 2 s late, the others wait
  pmi_poke.py spawn1      PMI-1 spawn (two mcmds) of child1 with a preput pair
  pmi_poke.py spawn2      PMI-2 spawn (two commands) of child2
  pmi_poke.py pub2 FILE   PMI-2 publish, wait for FILE, unpublish
  pmi_poke.py look2 FILE  PMI-2 lookup of what pub2 published, then FILE

Prints one line per check ("CHECK name ok" or "CHECK name FAIL ..."), and
"DONE rank R" at the end when every check passed (exit 0), else exit 1.
"""
import os
import socket
import sys
import time

fd = int(os.environ["PMI_FD"])
rank = int(os.environ["PMI_RANK"])
size = int(os.environ["PMI_SIZE"])
sock = socket.socket(fileno=fd)
sock.settimeout(60)
buf = b""
failed = False


def check(name, cond, detail=""):
    global failed
    print("CHECK %s %s%s" % (name, "ok" if cond else "FAIL", "" if cond else " " + detail),
          flush=True)
    if not cond:
        failed = True


def readline():
    global buf
    while b"\n" not in buf:
        d = sock.recv(65536)
        if not d:
            raise EOFError
        buf += d
    line, buf = buf.split(b"\n", 1)
    return line.decode()


def v1(line):
    """One PMI-1 request, its reply as a dict (cmd included)."""
    sock.sendall(line.encode() if isinstance(line, str) else line)
    return dict(w.split("=", 1) for w in readline().split() if "=" in w)


def v2read():
    global buf
    while len(buf) < 6:
        d = sock.recv(65536)
        if not d:
            raise EOFError
        buf += d
    n = int(buf[:6])
    while len(buf) < 6 + n:
        d = sock.recv(65536)
        if not d:
            raise EOFError
        buf += d
    body, buf = buf[6:6 + n].decode(), buf[6 + n:]
    items, cur, i = [], "", 0
    while i < len(body):  # ";;" inside a value is one ';'
        if body[i] == ";" and "=" in cur and body[i + 1:i + 2] == ";":
            cur += ";"
            i += 2
        elif body[i] == ";":
            items.append(cur)
            cur = ""
            i += 1
        else:
            cur += body[i]
            i += 1
    items.append(cur)
    return dict(w.split("=", 1) for w in items if "=" in w)


def v2raw(body):
    b = body.encode()
    sock.sendall(b"%6d" % len(b) + b)
    return v2read()


def v2(cmd, **kv):
    body = "cmd=%s;" % cmd + "".join("%s=%s;" % (k, str(v).replace(";", ";;"))
                                    for k, v in kv.items())
    return v2raw(body)


def init(version):
    r = v1("cmd=init pmi_version=%d pmi_subversion=0\n" % version)
    check("init v%d" % version, r.get("cmd") == "response_to_init" and r.get("rc") == "0", str(r))


def fence1():
    init(1)
    r = v1("cmd=get_my_kvsname\n")
    kvs = r.get("kvsname", "")
    check("kvsname", r.get("cmd") == "my_kvsname" and kvs.startswith("slurmix."), str(r))
    r = v1("cmd=get_maxes\n")
    check("maxes", r.get("vallen_max") == "1024", str(r))
    r = v1("cmd=get_universe_size\n")
    check("universe", r.get("size") == str(size), str(r))
    r = v1("cmd=put kvsname=%s key=k1-%d value=v1-%d\n" % (kvs, rank, rank))
    check("put", r.get("cmd") == "put_result" and r.get("rc") == "0", str(r))
    r = v1("cmd=barrier_in\n")
    check("barrier", r.get("cmd") == "barrier_out" and r.get("rc") == "0", str(r))
    good = all(v1("cmd=get kvsname=%s key=k1-%d\n" % (kvs, i)).get("value") == "v1-%d" % i
               for i in range(size))
    check("get all ranks' keys after the barrier", good)
    r = v1("cmd=get kvsname=%s key=PMI_process_mapping\n" % kvs)
    check("PMI_process_mapping", r.get("value", "").startswith("(vector,("), str(r))
    print("MAPPING %s" % r.get("value"), flush=True)
    r = v1("cmd=get kvsname=%s key=nosuchkey\n" % kvs)
    check("missing key", r.get("rc") == "-1", str(r))
    r = v1("cmd=finalize\n")
    check("finalize", r.get("cmd") == "finalize_ack", str(r))


def fence2():
    init(2)
    r = v2("fullinit", pmirank=rank)
    check("fullinit", r.get("rc") == "0" and r.get("rank") == str(rank) and
          r.get("size") == str(size), str(r))
    r = v2("job-getid")
    job = r.get("jobid", "")
    check("job-getid", job.startswith("slurmix."), str(r))
    r = v2("info-getjobattr", key="PMI_process_mapping")
    check("getjobattr PMI_process_mapping", r.get("found") == "TRUE" and
          r.get("value", "").startswith("(vector,("), str(r))
    r = v2("info-getjobattr", key="universeSize")
    check("getjobattr universeSize", r.get("value") == str(size), str(r))
    r = v2("kvs-put", key="k2-%d" % rank, value="v2;%d" % rank)
    check("kvs-put", r.get("cmd") == "kvs-put-response" and r.get("rc") == "0", str(r))
    r = v2("info-putnodeattr", key="nattr-%d" % rank, value="n%d" % rank)
    check("putnodeattr", r.get("rc") == "0", str(r))
    for it in range(3):
        r = v2("kvs-fence")
        check("kvs-fence %d" % it, r.get("cmd") == "kvs-fence-response" and r.get("rc") == "0",
              str(r))
    good = all(v2("kvs-get", jobid=job, srcid=i, key="k2-%d" % i).get("value") == "v2;%d" % i
               for i in range(size))
    check("kvs-get by srcid of every rank", good)
    good = all(v2("kvs-get", key="k2-%d" % i).get("value") == "v2;%d" % i for i in range(size))
    check("kvs-get without srcid of every rank", good)
    r = v2("kvs-get", srcid=0, key="nosuchkey")
    check("kvs-get missing key", r.get("rc") == "0" and r.get("found") == "FALSE", str(r))
    r = v2("info-getnodeattr", key="nattr-%d" % rank)
    check("getnodeattr own", r.get("found") == "TRUE" and r.get("value") == "n%d" % rank, str(r))
    r = v2("info-getnodeattr", key="nosuchattr")
    check("getnodeattr missing", r.get("found") == "FALSE", str(r))
    # no rank leaves while another still asks rank 0's node (its step
    # daemon ends with its last task: the missing key would then be
    # UNREACHABLE, as it was once in CI)
    r = v2("kvs-fence")
    check("last kvs-fence", r.get("cmd") == "kvs-fence-response" and r.get("rc") == "0", str(r))
    r = v2("finalize")
    check("finalize", r.get("cmd") == "finalize-response" and r.get("rc") == "0", str(r))


def broken1():
    r = v1("cmd=put kvsname=x key=a value=b\n")
    check("request before init", r.get("rc") == "-1" and r.get("cmd") == "response_to_init", str(r))
    init(1)
    kvs = v1("cmd=get_my_kvsname\n").get("kvsname", "")
    cases = [
        ("long line", "cmd=put key=a value=" + "x" * 10000 + "\n"),
        ("unknown command", "cmd=nosuchcmd a=b\n"),
        ("no cmd", "key=a value=b\n"),
        ("word without =", "cmd=put kvsname %s key=a value=b\n" % kvs),
        ("put without key", "cmd=put kvsname=%s value=b\n" % kvs),
        ("put without value", "cmd=put kvsname=%s key=a\n" % kvs),
        ("oversized value", "cmd=put kvsname=%s key=a value=%s\n" % (kvs, "v" * 2000)),
        ("oversized key", "cmd=put kvsname=%s key=%s value=b\n" % (kvs, "k" * 300)),
        ("bad character in a word's name", "cmd=put kvs$name=%s key=a value=b\n" % kvs),
        ("other kvsname", "cmd=put kvsname=other key=a value=b\n"),
        ("get without key", "cmd=get kvsname=%s\n" % kvs),
        ("init twice", "cmd=init pmi_version=1 pmi_subversion=1\n"),
        ("mcmd other than spawn", "mcmd=nosuch\na=b\nendcmd\n"),
        ("NUL byte", b"cmd=put\0 key=a value=b\n"),
        ("abort with a bad exitcode", "cmd=abort exitcode=abc\n"),
        ("spawn without execname", "mcmd=spawn\nnprocs=1\nendcmd\n"),
        ("spawn with a bad nprocs", "mcmd=spawn\nnprocs=-3\nexecname=x\nendcmd\n"),
        ("spawn out of order", "mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=3\n"
         "spawnssofar=2\nendcmd\n"),
        ("spawn with a missing argument", "mcmd=spawn\nnprocs=1\nexecname=x\nargcnt=2\n"
         "arg1=a\nendcmd\n"),
        ("spawn with a missing preput", "mcmd=spawn\nnprocs=1\nexecname=x\npreput_num=1\n"
         "endcmd\n"),
        ("spawn as a one-line request", "cmd=spawn nprocs=1 execname=x\n"),
    ]
    for name, line in cases:
        r = v1(line)
        check(name, r.get("rc") == "-1", str(r))
    r = v1("cmd=put kvsname=%s key=good value=fine\n" % kvs)
    check("a good put after the broken ones", r.get("rc") == "0", str(r))
    r = v1("cmd=barrier_in\n")
    check("barrier after the broken ones", r.get("cmd") == "barrier_out" and r.get("rc") == "0",
          str(r))
    r = v1("cmd=finalize\n")
    check("finalize", r.get("cmd") == "finalize_ack", str(r))


def broken2():
    init(2)
    cases = [
        ("fullinit of another rank", "cmd=fullinit;pmirank=%d;" % (rank + 1000)),
        ("unknown command", "cmd=nosuchcmd;a=b;"),
        ("no cmd", "key=a;value=b;"),
        ("word without =", "cmd=kvs-put;key;value=b;"),
        ("kvs-put without key", "cmd=kvs-put;value=b;"),
        ("kvs-put without value", "cmd=kvs-put;key=a;"),
        ("oversized value", "cmd=kvs-put;key=a;value=%s;" % ("v" * 5000)),
        ("oversized key", "cmd=kvs-put;key=%s;value=b;" % ("k" * 300)),
        ("kvs-get of a rank outside the job", "cmd=kvs-get;srcid=%d;key=a;" % (size + 5)),
        ("kvs-get with a bad srcid", "cmd=kvs-get;srcid=1x;key=a;"),
        ("kvs-get of another job", "cmd=kvs-get;jobid=other;key=a;"),
        ("putnodeattr oversized", "cmd=info-putnodeattr;key=a;value=%s;" % ("v" * 5000)),
        ("getnodeattr without key", "cmd=info-getnodeattr;"),
        ("name-publish without port", "cmd=name-publish;name=svc;"),
        ("spawn with fewer commands than ncmds", "cmd=spawn;ncmds=2;subcmd=x;maxprocs=1;"),
        ("spawn with more commands than ncmds",
         "cmd=spawn;ncmds=1;subcmd=x;maxprocs=1;subcmd=y;maxprocs=1;"),
        ("spawn with too many processes", "cmd=spawn;ncmds=1;subcmd=x;maxprocs=9999999;"),
        ("spawn with a missing preput", "cmd=spawn;ncmds=1;preputcount=2;ppkey0=a;ppval0=b;"
         "subcmd=x;maxprocs=1;"),
        ("job-connect", "cmd=job-connect;jobid=x;"),
        ("too many pairs", "cmd=kvs-put;" + "a=b;" * 2000),
    ]
    for name, body in cases:
        r = v2raw(body)
        check(name, r.get("rc") == "-1", str(r))
    r = v2("fullinit", pmirank=rank)
    check("fullinit after the broken ones", r.get("rc") == "0", str(r))
    r = v2("kvs-put", key="good", value="fine")
    check("a good put after the broken ones", r.get("rc") == "0", str(r))
    r = v2("kvs-fence")
    check("fence after the broken ones", r.get("rc") == "0", str(r))
    r = v2("finalize")
    check("finalize", r.get("rc") == "0", str(r))


def badlen2():
    init(2)
    sock.sendall(b"abcdefcmd=kvs-fence;")
    try:
        r = v2read()
        check("error reply to a broken length", r.get("rc") == "-1", str(r))
        closed = False
        try:
            closed = sock.recv(1) == b""
        except OSError:
            closed = True
        check("connection closed after a broken length", closed)
    except EOFError:
        check("error reply to a broken length", False, "closed without a reply")


def pubsub2():
    init(2)
    v2("fullinit", pmirank=rank)
    if rank == 0:
        r = v2("name-publish", name="pmisvc", port="tcp://here:1234")
        check("name-publish", r.get("rc") == "0", str(r))
    v2("kvs-fence")
    r = v2("name-lookup", name="pmisvc")
    check("name-lookup", r.get("rc") == "0" and r.get("port") == "tcp://here:1234", str(r))
    v2("kvs-fence")
    if rank == 0:
        r = v2("name-unpublish", name="pmisvc")
        check("name-unpublish", r.get("rc") == "0", str(r))
    v2("kvs-fence")
    r = v2("name-lookup", name="pmisvc")
    check("name-lookup after unpublish", r.get("rc") == "-1", str(r))
    v2("finalize")


def fwait2():
    """The last rank enters the fence 2 s late: nobody leaves it earlier."""
    init(2)
    v2("fullinit", pmirank=rank)
    if rank == size - 1:
        time.sleep(2)
    t = time.time()
    r = v2("kvs-fence")
    waited = time.time() - t
    check("fence waits for the late rank", r.get("rc") == "0" and
          (rank == size - 1 or waited > 1.5), "%.2f s %s" % (waited, r))
    v2("finalize")


def spawn1():
    """Rank 0 spawns 2 children (2 mcmds of 1 process each) with a preput
    pair; every rank barriers after."""
    init(1)
    if rank == 0:
        req = ""
        for i in (1, 2):
            req += ("mcmd=spawn\nnprocs=1\nexecname=./pmi_poke.py\ntotspawns=2\n"
                    "spawnssofar=%d\nargcnt=2\narg1=child1\narg2=from cmd %d\n"
                    "preput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\n"
                    "preput_val_0=tag#0$port=1 x\ninfo_num=0\nendcmd\n" % (i, i))
        r = v1(req)
        check("spawn_result", r.get("cmd") == "spawn_result" and r.get("rc") == "0", str(r))
    r = v1("cmd=barrier_in\n")
    check("barrier", r.get("rc") == "0", str(r))
    v1("cmd=finalize\n")


def child1():
    init(1)
    kvs = v1("cmd=get_my_kvsname\n").get("kvsname")
    r = v1("cmd=get kvsname=%s key=PARENT_ROOT_PORT_NAME\n" % kvs)
    check("child sees the preput", r.get("value") == "tag#0$port=1_x", str(r))
    print("CHILD rank %d of %d spawned %s args %s" % (rank, size, os.environ.get("PMI_SPAWNED"),
                                                     "|".join(sys.argv[2:])), flush=True)
    v1("cmd=finalize\n")


def spawn2():
    init(2)
    v2("fullinit", pmirank=rank)
    if rank == 0:
        r = v2raw("cmd=spawn;ncmds=2;preputcount=1;ppkey0=PARENT_ROOT_PORT_NAME;ppval0=p2;"
                  "subcmd=./pmi_poke.py;maxprocs=2;argc=1;argv0=child2;infokeycount=0;"
                  "subcmd=./pmi_poke.py;maxprocs=1;argc=2;argv0=child2;argv1=second;"
                  "infokeycount=1;infokey0=wdir;infoval0=%s;" % os.getcwd())
        check("spawn-response", r.get("cmd") == "spawn-response" and r.get("rc") == "0" and
              r.get("jobid", "").startswith("slurmix."), str(r))
    v2("kvs-fence")
    v2("finalize")


def child2():
    init(2)
    r = v2("fullinit", pmirank=rank)
    check("child has a spawner", r.get("spawner-jobid", "").startswith("slurmix."), str(r))
    r = v2("kvs-get", key="PARENT_ROOT_PORT_NAME")
    check("child sees the preput", r.get("value") == "p2", str(r))
    print("CHILD rank %d of %d args %s" % (rank, size, "|".join(sys.argv[2:])), flush=True)
    v2("finalize")


def pub2():
    """Publishes pmixsvc, waits for the lookup step's word, unpublishes."""
    init(2)
    v2("fullinit", pmirank=rank)
    r = v2("name-publish", name="xstepsvc", port="port-of-%s" % os.environ["SLURM_STEP_ID"])
    check("name-publish", r.get("rc") == "0", str(r))
    print("PUBLISHED", flush=True)
    for _ in range(100):
        if os.path.exists(sys.argv[2]):
            break
        time.sleep(0.1)
    r = v2("name-unpublish", name="xstepsvc")
    check("name-unpublish", r.get("rc") == "0", str(r))
    v2("finalize")


def look2():
    """Looks up what another step of the allocation published."""
    init(2)
    v2("fullinit", pmirank=rank)
    r = {}
    for _ in range(50):
        r = v2("name-lookup", name="xstepsvc")
        if r.get("rc") == "0":
            break
        time.sleep(0.1)
    check("name-lookup from another step", r.get("port", "").startswith("port-of-"), str(r))
    print("LOOKUP %s" % r.get("port"), flush=True)
    open(sys.argv[2], "w").close()
    v2("finalize")


{"fwait2": fwait2, "pub2": pub2, "look2": look2, "spawn1": spawn1, "child1": child1, "spawn2": spawn2, "child2": child2,
 "fence1": fence1, "fence2": fence2, "broken1": broken1, "broken2": broken2,
 "badlen2": badlen2, "pubsub2": pubsub2}[sys.argv[1]]()
if not failed:
    print("DONE rank %d" % rank, flush=True)
sys.exit(1 if failed else 0)
