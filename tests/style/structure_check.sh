#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# structure_check.sh - the rules of the tree's layout that a compiler does
# not check (STYLE.md, src/plugin/README-dev.md), as a test:
#   1. src/plugin/ itself holds no .c but the entry point and the Slurm
#      adapter; everything else is in a folder named for its process;
#   2. no header of src/plugin, src/tools, src/iof or src/pmix_core declares a
#      function that another .c defines, and every function a .c there
#      exports is declared in its own header (the Slurm entry points of
#      mpi_slurmix.c and the PMIx API of src/pmix_core/include excepted);
#   3. the stepd transport (net/transport.c) and srun's agent
#      (srun/agent.c) call no feature by name;
#   4. the plugin reaches the core only through pxc_host.h and the public
#      headers;
#   5. no file of the core's server/ includes anything of client/.
# Needs python3 and Universal Ctags (Debian: universal-ctags); without
# them it skips (77), and under CI=true that is a failure.
set -uo pipefail
src=${SLURMIX_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
skip() {
	echo "structure: SKIP: $1"
	[ "${CI:-}" = true ] && exit 1
	exit 77
}
command -v python3 >/dev/null || skip "no python3"
ctags --version 2>/dev/null | grep -q 'Universal Ctags' || skip "no Universal Ctags"
cd "$src" || exit 1
exec python3 - <<'PY'
import os, re, subprocess, sys

bad = []
plugin = 'src/plugin'

# 1. the top of src/plugin
top = sorted(f for f in os.listdir(plugin) if f.endswith('.c'))
for f in top:
    if f not in ('mpi_slurmix.c', 'slurm_adapter.c'):
        bad.append(f'{plugin}/{f}: a .c outside the folders of src/plugin')

# 2. every function declared in the header of the file that defines it
def walk(root, ext):
    for d, _, fs in os.walk(root):
        for f in sorted(fs):
            if f.endswith(ext):
                yield os.path.join(d, f)

def tags(kind, files):
    out = subprocess.run(['ctags', '-x', '--_xformat=%N\t%F\t%n', '--kinds-C=' + kind,
                          '-o', '-'] + files, capture_output=True, text=True, check=True).stdout
    cache = {}
    for line in out.splitlines():
        name, path, n = line.split('\t')
        lines = cache.setdefault(path, open(path).read().split('\n'))
        i = int(n) - 1
        static = re.search(r'\bstatic\b', lines[i]) or (
            i > 0 and re.match(r'^static\b', lines[i - 1]) and not lines[i - 1].rstrip().endswith(';'))
        yield name, path, bool(static)

def own_headers(root, exempt, public=None):
    cs = list(walk(root, '.c'))
    hs = [h for h in walk(root, '.h') if not (public and h.startswith(public))]
    decls, api = {}, set()
    for name, path, _ in tags('p', hs):
        decls.setdefault(name, set()).add(path)
    if public:          # the PMIx API: declared where the Standard puts it
        api = {name for name, _, _ in tags('p', list(walk(public, '.h')))}
    for name, path, static in tags('f', cs):
        if static or name == 'main' or name.isupper():   # isupper: a macro's use
            continue
        own = path[:-2] + '.h'
        where = decls.get(name, set())
        for h in sorted(where - {own}):
            bad.append(f'{h}: declares {name}, which {path} defines')
        if not where and name not in api and path not in exempt:
            bad.append(f'{path}: {name} is declared in no header')
    return cs, hs

cs, hs = own_headers(plugin, {f'{plugin}/mpi_slurmix.c'})   # Slurm's entry points
own_headers('src/tools', set())
own_headers('src/iof', set())
own_headers('src/pmix_core', set(), public='src/pmix_core/include/')

# 3. mechanisms that know no feature
features = r'\bplug_(coll|dmodex|lost|event|xstep|boot|abort|pub|spawn)_\w+\s*\('
for path in (f'{plugin}/net/transport.c', f'{plugin}/srun/agent.c'):
    if not os.path.exists(path):
        bad.append(f'{path}: missing'); continue
    text = re.sub(r'/\*.*?\*/', '', open(path).read(), flags=re.S)
    for m in sorted(set(re.findall(r'\bplug_(?:coll|dmodex|lost|event|xstep|boot|abort|pub|spawn)_\w+(?=\s*\()', text))):
        bad.append(f'{path}: calls {m}, a feature')

# 4. the plugin's way into the core
core_ok = {'pxc_host.h', 'slurm_adapter.h'}
local = re.compile(r'^#include "((?:lib|common|srun|stepd|net)/[\w.]+)"', re.M)
for path in cs + hs:
    for inc in re.findall(r'^#include "([^"]+)"', open(path).read(), re.M):
        if inc in core_ok or inc.startswith(('lib/', 'common/', 'srun/', 'stepd/', 'net/')):
            continue
        if inc.startswith('pmix'):     # public headers
            continue
        bad.append(f'{path}: includes the core\'s "{inc}" (use pxc_host.h)')

# 5. server/ never includes client/
for path in walk('src/pmix_core/server', '.c'):
    for inc in re.findall(r'^#include "([^"]+)"', open(path).read(), re.M):
        if 'client/' in inc:
            bad.append(f'{path}: includes {inc}')

for b in bad:
    print('structure: FAIL:', b)
print(f"structure: src/plugin, src/tools, src/iof and src/pmix_core read ({len(cs)} .c in src/plugin), {len(bad)} problems")
sys.exit(1 if bad else 0)
PY
