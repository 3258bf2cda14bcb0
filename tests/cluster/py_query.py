# SPDX-License-Identifier: BSD-3-Clause
"""py_query.py - Debian's python3-pmix asking PMIx_Query_info (docs/query.md).

Each rank asks PMIX_TIME_REMAINING, PMIX_QUERY_NAMESPACES,
PMIX_QUERY_QUEUE_LIST and PMIX_QUERY_SPAWN_SUPPORT in one query, then the
same with a key nobody knows. The first must succeed with a remaining time
in (0, argv[1]] seconds, its own namespace among the namespaces, the queue
argv[2] in the list and pmix.host among the spawn attributes; the second
must be a partial success (python3-pmix 4.2 hands no results with it).
Then PMIX_QUERY_ATTRIBUTE_SUPPORT for the client's and the host's
functions: PMIx_Get among the first, PMIx_Spawn and PMIx_Job_control
among the second (python3-pmix 4.2 cannot unpack pmix_regattr_t arrays,
so the lists of attributes are pmix_query.c's). Rank 0 prints "python
query ok: left S s, namespaces N, host functions F". Run with
/usr/bin/python3.
"""
import sys
import warnings

warnings.simplefilter("ignore", DeprecationWarning)
import pmix  # noqa: E402


def fail(msg):
    print("python query FAILED: " + msg, file=sys.stderr)
    sys.exit(1)


def text(k):
    """python3-pmix 4.2's key constants are bytes, its results' keys str."""
    return k.decode() if isinstance(k, bytes) else k


def main():
    limit, queue = int(sys.argv[1]), sys.argv[2]
    c = pmix.PMIxClient()
    rc, me = c.init([])
    if rc != pmix.PMIX_SUCCESS:
        fail("init: %d" % rc)
    T, NS, QL, SP = (text(k) for k in (pmix.PMIX_TIME_REMAINING, pmix.PMIX_QUERY_NAMESPACES,
                                       pmix.PMIX_QUERY_QUEUE_LIST,
                                       pmix.PMIX_QUERY_SPAWN_SUPPORT))
    keys = [T, NS, QL, SP]
    rc, res = c.query([{"keys": keys, "qualifiers": []}])
    if rc != pmix.PMIX_SUCCESS:
        fail("query: %d" % rc)
    got = {text(r["key"]): r["value"] for r in res}
    left = got.get(T)
    if not isinstance(left, int) or not 0 < left <= limit:
        fail("time remaining %r, limit %d" % (left, limit))
    spaces = str(got.get(NS, "")).split(",")
    if me["nspace"] not in spaces:
        fail("%s not in the namespaces %r" % (me["nspace"], spaces))
    if queue not in str(got.get(QL, "")).split(","):
        fail("queue %s not in %r" % (queue, got.get(QL)))
    if "pmix.host" not in str(got.get(SP, "")).split(","):
        fail("spawn support %r" % got.get(SP))
    rc, res = c.query([{"keys": [T, "slurmix.no.such.key"],
                        "qualifiers": []}])
    if rc != pmix.PMIX_QUERY_PARTIAL_SUCCESS:
        fail("an unknown key beside a known one: %d, not partial success" % rc)
    CF, HF = text(pmix.PMIX_CLIENT_FUNCTIONS), text(pmix.PMIX_HOST_FUNCTIONS)
    quals = [{"key": k, "value": True, "val_type": pmix.PMIX_BOOL} for k in (CF, HF)]
    rc, res = c.query([{"keys": [text(pmix.PMIX_QUERY_ATTRIBUTE_SUPPORT)],
                        "qualifiers": quals}])
    if rc != pmix.PMIX_SUCCESS:
        fail("attribute support: %d" % rc)
    got = {text(r["key"]): str(r["value"]).split(",") for r in res}
    if "PMIx_Get" not in got.get(CF, []):
        fail("client functions %r" % got.get(CF))
    host = got.get(HF, [])
    if "PMIx_Spawn" not in host or "PMIx_Job_control" not in host:
        fail("host functions %r" % host)
    if me["rank"] == 0:
        print("python query ok: left %d s, namespaces %d, host functions %d"
              % (left, len(spaces), len(host)))
    c.finalize([])


if __name__ == "__main__":
    main()
