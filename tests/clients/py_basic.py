# SPDX-License-Identifier: BSD-3-Clause
"""py_basic.py - Debian's python3-pmix as a client of our PMIx server.

Each rank initialises, checks PMIX_JOB_SIZE against argv[1], puts its own
key, commits, fences with data collection, gets every peer's key and
checks the value, then finalizes. Rank 0 prints "python ok: size N".
Run with /usr/bin/python3 (the only interpreter that has the module).
"""
import sys
import warnings

warnings.simplefilter("ignore", DeprecationWarning)
import pmix  # noqa: E402


def fail(msg):
    print("python FAILED: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    want = int(sys.argv[1])
    c = pmix.PMIxClient()
    rc, me = c.init([])
    if rc != pmix.PMIX_SUCCESS:
        fail("init: %d" % rc)
    ns, rank = me["nspace"], me["rank"]
    wild = {"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD}
    rc, size = c.get(wild, pmix.PMIX_JOB_SIZE, [])
    if rc != pmix.PMIX_SUCCESS or size.get("value") != want \
            or size.get("val_type") != pmix.PMIX_UINT32:
        fail("job size %r (rc %d), expected %d" % (size, rc, want))
    rc = c.put(pmix.PMIX_GLOBAL, "py.key",
               {"value": "py-%d" % rank, "val_type": pmix.PMIX_STRING})
    if rc != pmix.PMIX_SUCCESS:
        fail("put: %d" % rc)
    if c.commit() != pmix.PMIX_SUCCESS:
        fail("commit")
    collect = [{"key": pmix.PMIX_COLLECT_DATA, "value": True,
                "val_type": pmix.PMIX_BOOL}]
    rc = c.fence([wild], collect)
    if rc != pmix.PMIX_SUCCESS:
        fail("fence: %d" % rc)
    for peer in range(want):
        rc, val = c.get({"nspace": ns, "rank": peer}, "py.key", [])
        if rc != pmix.PMIX_SUCCESS or val.get("value") != "py-%d" % peer:
            fail("get of rank %d: rc %d value %r" % (peer, rc, val))
    if c.finalize([]) != pmix.PMIX_SUCCESS:
        fail("finalize")
    if rank == 0:
        print("python ok: size %d" % want)


main()
