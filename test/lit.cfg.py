# lit configuration of the shardc test suite.
import os
import lit.formats

config.name = "shardc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.join(config.shardc_src_root, "test")
config.test_exec_root = os.path.join(config.shardc_obj_root, "test")

tools = os.path.join(config.shardc_obj_root, "tools")
config.substitutions.append(("%shardc-opt", os.path.join(tools, "shardc-opt", "shardc-opt")))
config.substitutions.append(("%shardc-translate", os.path.join(tools, "shardc-translate", "shardc-translate")))
config.substitutions.append(("%shardc-nvrtc", os.path.join(tools, "shardc-nvrtc", "shardc-nvrtc")))
config.substitutions.append(("%shardc", os.path.join(tools, "shardc", "shardc")))
# The support library's symbolic sizes (unittests/Support).
config.substitutions.append(("%support-tests", os.path.join(config.shardc_obj_root, "unittests", "shardc-support-tests")))
# The planner's cost model (unittests/Planner).
config.substitutions.append(("%planner-tests", os.path.join(config.shardc_obj_root, "unittests", "shardc-planner-tests")))
# Runtime: the gtest binary and a hand-written model linked like a compiled one.
runtime = os.path.join(config.shardc_obj_root, "runtime")
config.substitutions.append(("%runtime-tests", os.path.join(runtime, "shardc-runtime-tests")))
config.substitutions.append(("%fake-model", os.path.join(runtime, "test", "shardc-fake-model")))
config.substitutions.append(("%mpi-tests", os.path.join(runtime, "shardc-mpi-tests")))
# Multi-rank runs (test/Integration): mpirun from Open MPI.
import shutil
if shutil.which("mpirun"):
    config.available_features.add("mpi")
# Multi-host runs (scripts/netns-hosts.sh) make hosts as network namespaces:
# root, and a throwaway namespace with a veth pair in it can be made.
import subprocess
_ns = "shardc-probe-%d" % os.getpid()
if os.geteuid() == 0 and shutil.which("ip") and shutil.which("unshare") and subprocess.call(
        ["sh", "-c", "ip netns add %s && ip -n %s link add name sca type veth peer name scb; r=$?; ip netns del %s; exit $r" % (_ns, _ns, _ns)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("netns")
# The install test hides the build and source trees behind empty mounts in
# a mount namespace of its own.
if os.geteuid() == 0 and shutil.which("unshare") and subprocess.call(
        ["unshare", "-m", "true"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("mount-namespace")
# Open MPI refuses to run as root without these (containers, CI).
config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
config.substitutions.append(("%fake-weights", os.path.join(runtime, "test", "shardc-fake-weights")))
# Debian's python3 has onnx, numpy and torch; the python3 on PATH may not.
config.substitutions.append(("%python", "/usr/bin/python3"))
config.substitutions.append(("%src", config.shardc_src_root))
config.substitutions.append(("%build", config.shardc_obj_root))
# The newer ONNX node test suite sits in ../shared beside the checkout when
# present (SHARDC_SHARED_DIR overrides); tests on it require the feature.
shared = os.environ.get("SHARDC_SHARED_DIR",
                        os.path.join(config.shardc_src_root, "..", "shared"))
if not os.path.isdir(os.path.join(shared, "onnx-node-tests", "node")):
    shared = "/work/shared"
if os.path.isdir(os.path.join(shared, "onnx-node-tests", "node")):
    config.available_features.add("onnx-node-tests")
config.substitutions.append(("%shared", shared))
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
