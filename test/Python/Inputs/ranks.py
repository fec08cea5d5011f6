"""ranks.py LIBRARY IDS OUT: one rank of a multi-rank library, under mpirun.
Loads its rank (the launcher's), runs on IDS and writes each output it
holds to OUT/rank<R>_<name>.npy, with one line saying what it loaded."""
import os
import sys

import numpy as np

import shardc

library, ids, out = sys.argv[1:4]
m = shardc.load(library)
result = m.run({"ids": np.load(ids)})
m.barrier()
for name, value in result.items():
    np.save(os.path.join(out, "rank%d_%s.npy" % (m.rank, name)), value)
with open(os.path.join(out, "rank%d.txt" % m.rank), "w") as f:
    f.write("rank %d of %d: inputs %s, outputs %s\n" %
            (m.rank, m.world_size, m.inputs, sorted(result)))
