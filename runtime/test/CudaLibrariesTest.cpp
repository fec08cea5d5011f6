//===- CudaLibrariesTest.cpp - the dlopen'ed CUDA function tables ---------===//
//
// Without a GPU the libraries cannot run, but they load: every function the
// runtime looks up must exist under the name it looks for. cuBLASLt and
// cuDNN load for real. The driver is checked against the toolkit's stub
// libcuda.so, which exports the whole driver API and fails cuInit: getting
// that far means every entry point resolved. The stub runs in a child
// process, so the test process never has it loaded (its soname is
// libcuda.so.1, which later loads of the real driver would then match).
//
//===----------------------------------------------------------------------===//
#include "runtime/src/cuda/Driver.h"
#include "runtime/src/cuda/Libraries.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/stat.h>

using namespace shardc::rt::cuda;

namespace {

// The toolkit's library directory, from the build (runtime/CMakeLists.txt).
const std::string kLibDir = SHARDC_CUDA_LIBRARY_DIR;

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

TEST(CudaLibraries, CublasLtTableResolves) {
  if (!exists(kLibDir + "/libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR)))
    GTEST_SKIP() << "no cuBLASLt in " << kLibDir;
  std::string error;
  const CublasLt *lt = loadCublasLt(error);
  ASSERT_TRUE(lt) << error;
  EXPECT_EQ(lt->cublasLtGetVersion() / 10000, size_t(CUBLAS_VER_MAJOR));
  EXPECT_EQ(lt->statusText(CUBLAS_STATUS_NOT_SUPPORTED)
                .rfind("CUBLAS_STATUS_NOT_SUPPORTED", 0),
            0u);
  EXPECT_EQ(loadCublasLt(error), lt); // loaded once
}

TEST(CudaLibraries, CudnnTableResolves) {
  if (!exists(kLibDir + "/libcudnn.so." + std::to_string(CUDNN_MAJOR)))
    GTEST_SKIP() << "no cuDNN in " << kLibDir;
  std::string error;
  const Cudnn *dnn = loadCudnn(error);
  ASSERT_TRUE(dnn) << error;
  EXPECT_EQ(dnn->cudnnGetVersion() / 10000, size_t(CUDNN_MAJOR));
  EXPECT_EQ(dnn->statusText(CUDNN_STATUS_BAD_PARAM), "CUDNN_STATUS_BAD_PARAM");
}

TEST(CudaLibraries, DriverTableResolvesAgainstTheStub) {
  const std::string stub = kLibDir + "/stubs/libcuda.so";
  if (!exists(stub))
    GTEST_SKIP() << "no " << stub;
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("SHARDC_LIBCUDA", stub.c_str(), 1);
        std::string error;
        const Driver *drv = loadDriver(error);
        std::fprintf(stderr, "%s\n", error.c_str());
        std::exit(drv ? 1 : 0);
      },
      ::testing::ExitedWithCode(0),
      "^no usable GPU: cuInit failed: CUDA_ERROR_STUB_LIBRARY");
}

} // namespace
