// Runs the CUDA entry of a generated program (rank 0) on the host emulation
// (shardc_cuda.cuh): `main WEIGHTS DIR` reads DIR/in_<name>.bin for every
// input and writes DIR/out_<name>.bin for every output. Launches run at most
// 3 blocks (every generated kernel grid-strides, so this also exercises the
// strides). The trampolines (emu_tramps) come from emulate.py.
#include "shardc/cuda.h"
#include "shardc/format.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" const shardc_program shardc_model_program;
void emu_run(unsigned kernel, unsigned grid, unsigned block, void **args);

extern "C" void sc_cu_launch(sc_cuda *, uint32_t kernel, uint32_t grid_x,
                             uint32_t grid_y, uint32_t grid_z, uint32_t block,
                             uint32_t shared_bytes, void **args) {
  if (grid_y != 1 || grid_z != 1 || shared_bytes != 0) {
    std::fprintf(stderr, "emulate: unexpected launch geometry\n");
    std::abort();
  }
  emu_run(kernel, grid_x, block, args);
}

extern "C" void sc_cu_copy(sc_cuda *, void *dst, const void *src,
                           uint64_t bytes) {
  std::memcpy(dst, src, bytes);
}

static std::vector<char> slurp(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "emulate: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

int main(int argc, char **argv) {
  using namespace shardc::format;
  if (argc != 3)
    return 2;
  const shardc_program &program = shardc_model_program;
  Plan plan;
  std::string error;
  if (!decodePlan(program.plan, program.plan_size, plan, error)) {
    std::fprintf(stderr, "emulate: %s\n", error.c_str());
    return 2;
  }
  std::vector<char> w = slurp(argv[1]);
  const char *weights = w.data() + weightsSectionOffset(w.data(), 0);
  const RankPlan &rank = plan.ranks[0];
  std::vector<char> arena(rank.arenaBytes + 128);
  char *base = arena.data() + (64 - (uintptr_t)arena.data() % 64) % 64;
  std::string dir = argv[2];
  // Buffers 64-byte aligned, as the runtime's; outputs start as 0x5a bytes
  // so that unwritten elements show.
  std::vector<std::vector<char>> store;
  auto aligned = [&](std::vector<char> bytes) {
    store.emplace_back(bytes.size() + 64);
    char *p = store.back().data();
    p += (64 - (uintptr_t)p % 64) % 64;
    std::memcpy(p, bytes.data(), bytes.size());
    return p;
  };
  std::vector<void *> in, out;
  std::vector<uint64_t> outBytes;
  for (const TensorSig &s : rank.inputs)
    in.push_back(aligned(slurp(dir + "/in_" + s.name + ".bin")));
  for (const TensorSig &s : rank.outputs) {
    uint64_t n = dtypeSize(s.dtype);
    for (int64_t d : s.dims)
      n *= d;
    outBytes.push_back(n);
    out.push_back(aligned(std::vector<char>(n, (char)0x5a)));
  }
  std::vector<void *> handles(rank.numHandles + 1);
  sc_rank_ctx ctx{}; // rank 0 of 1, no communicators, no stream
  ctx.world_size = 1;
  if (program.cuda_ranks[0].init(&ctx, nullptr, handles.data()))
    return 2;
  program.cuda_ranks[0].run(&ctx, nullptr, handles.data(), base, weights,
                            in.data(), out.data());
  for (size_t i = 0; i < rank.outputs.size(); ++i) {
    std::ofstream f(dir + "/out_" + rank.outputs[i].name + ".bin",
                    std::ios::binary);
    f.write(static_cast<const char *>(out[i]), outBytes[i]);
  }
  return 0;
}
