# SPDX-License-Identifier: BSD-3-Clause
"""py_group.py - Debian's python3-pmix constructing a group (docs/groups.md).

Every rank of the step constructs "pyg" over the whole step with
PMIX_GROUP_ASSIGN_CONTEXT_ID, checks that a context id and the membership
came back, destructs it, and prints "python group ok cid C members N".
Run with /usr/bin/python3.
"""
import sys
import warnings

warnings.simplefilter("ignore", DeprecationWarning)
import pmix  # noqa: E402


def fail(msg):
    print("python group FAILED: " + msg, file=sys.stderr)
    sys.exit(1)


def text(k):
    """python3-pmix 4.2's key constants are bytes, its results' keys str."""
    return k.decode() if isinstance(k, bytes) else k


def main():
    c = pmix.PMIxClient()
    rc, me = c.init([])
    if rc != pmix.PMIX_SUCCESS:
        fail("init: %d" % rc)
    rc, sz = c.get({"nspace": me["nspace"], "rank": pmix.PMIX_RANK_WILDCARD},
                     text(pmix.PMIX_JOB_SIZE), [])
    if rc != pmix.PMIX_SUCCESS:
        fail("job size: %d" % rc)
    size = sz["value"] if isinstance(sz, dict) else sz
    procs = [{"nspace": me["nspace"], "rank": r} for r in range(size)]
    dirs = [{"key": text(pmix.PMIX_GROUP_ASSIGN_CONTEXT_ID), "value": True,
             "val_type": pmix.PMIX_BOOL}]
    rc, res = c.group_construct("pyg", procs, dirs)
    if rc != pmix.PMIX_SUCCESS:
        fail("construct: %d" % rc)
    got = {text(r["key"]): r["value"] for r in res}
    cid = got.get(text(pmix.PMIX_GROUP_CONTEXT_ID))
    members = got.get(text(pmix.PMIX_GROUP_MEMBERSHIP))
    if not isinstance(cid, int) or cid <= 0:
        fail("context id %r" % cid)
    if isinstance(members, dict):  # python3-pmix 4.2: a data array
        members = members.get("array")
    n = len(members) if isinstance(members, list) else -1
    if n != size:
        fail("membership %r" % members)
    rc = c.group_destruct("pyg", [])
    if rc != pmix.PMIX_SUCCESS:
        fail("destruct: %d" % rc)
    print("python group ok cid %d members %d" % (cid, n))
    c.finalize([])


main()
