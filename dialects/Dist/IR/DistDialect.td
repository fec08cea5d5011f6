//===- DistDialect.td - the dist dialect -----------------------*- tablegen -*-===//
//
// Device meshes, tensor shardings and collectives: what partitioning adds to
// a graph program.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIST_DIALECT
#define SHARDC_DIST_DIALECT

include "mlir/IR/OpBase.td"

def Dist_Dialect : Dialect {
  let name = "dist";
  let cppNamespace = "::shardc::dist";
  let summary = "device meshes, shardings and collectives";
  let description = [{
    A `dist.mesh` names the devices of a job as a grid with named axes
    (`["dp", "pp", "tp"]` of sizes `[2, 2, 4]`; ranks are numbered row-major
    over it). A `#dist.sharding` says how a tensor is laid out over a mesh:
    for each tensor dim, the mesh axes it is split over (major to minor), and
    the axes along which the tensor holds partial sums that a collective must
    still reduce. A dim split over axes of total size n must divide by n.

    `dist.shard` annotates a value of the global program with a sharding
    (a seed for propagation, or its result). The collectives (`all_reduce`,
    `all_gather`, `reduce_scatter`, `all_to_all`, `send`, `recv`) act on the
    local tensors of the per-rank programs partitioning produces; each names
    its mesh and the axes whose ranks take part (one group per combination
    of the other axes' coordinates).

    The design follows Shardy's factor-based shardings and MLIR's `mesh`
    dialect, owned here: meshes of any number of axes, and the cost queries
    the planner needs.
  }];
  let useDefaultAttributePrinterParser = 1;
  let usePropertiesForAttributes = 0;
}

class Dist_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dist_Dialect, mnemonic, traits>;

#endif // SHARDC_DIST_DIALECT
