//===- Toolchain.cpp - host compiler and linker invocation -----------------===//
//
// Runs the host compiler on the generated C++ (one process per translation
// unit of a split program, several at once) and the linker. The processes
// are spawned here, not through llvm::sys::ExecuteAndWait, so that each
// gets its own process group (an interrupted shardc kills the compiler
// driver, cc1plus and the assembler together) and TMPDIR pointing into the
// build directory (whatever they leave there goes with it).
//
// Interruption (SIGINT, SIGTERM, SIGHUP): the handler, async-signal-safe,
// sends SIGTERM to every compiler's process group (the gcc driver deletes
// its temporaries on SIGTERM), waits for them (2 s, then SIGKILL), empties
// and removes the registered build directory, and then re-raises the signal
// under the disposition it found (LLVM's handler, which removes its own
// files, or the default).
//
//===----------------------------------------------------------------------===//

#include "Toolchain.h"

#include "shardc/Target/Cpp.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace llvm;

#ifndef SHARDC_RUNTIME_LIB_DIR
#error "SHARDC_RUNTIME_LIB_DIR must be defined"
#endif

//===----------------------------------------------------------------------===//
// Cleanup on signals
//===----------------------------------------------------------------------===//

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr unsigned kMaxChildren = 256;
constexpr unsigned kMaxDirs = 8;

/// Process groups (leader pids) of running compilers; 0 is a free slot.
std::atomic<pid_t> children[kMaxChildren];
/// Directories to remove: written once before `numDirs` publishes them.
char dirs[kMaxDirs][4096];
std::atomic<unsigned> numDirs{0};
std::atomic<bool> interrupted{false};
/// Set once the first handler has killed the compilers and removed the
/// directories.
std::atomic<bool> cleaned{false};
struct sigaction previous[NSIG];
bool installed[NSIG];

void sleepMs(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/// Removes the entries of a flat directory, then the directory (system
/// calls only: no allocation, no stdio). Returns whether it is gone.
bool removeFlatDirectory(const char *path) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    static char buffer[8192];
    for (;;) {
      long n = syscall(SYS_getdents64, fd, buffer, sizeof(buffer));
      if (n <= 0)
        break;
      for (long at = 0; at < n;) {
        auto *entry = reinterpret_cast<struct dirent64 *>(buffer + at);
        at += entry->d_reclen;
        const char *name = entry->d_name;
        if (name[0] == '.' &&
            (name[1] == 0 || (name[1] == '.' && name[2] == 0)))
          continue;
        unlinkat(fd, name, 0);
      }
    }
    close(fd);
  }
  return rmdir(path) == 0 || errno == ENOENT;
}

void onSignal(int sig) {
  int savedErrno = errno;
  if (!interrupted.exchange(true)) {
    // The compilers first: they may still write into the directory.
    for (auto &child : children)
      if (pid_t pid = child.load())
        kill(-pid, SIGTERM);
    for (int waited = 0; waited <= 2000; waited += 10) {
      bool alive = false;
      for (auto &child : children)
        if (pid_t pid = child.load()) {
          waitpid(pid, nullptr, WNOHANG); // the leader may be a zombie
          alive |= kill(-pid, 0) == 0;
        }
      if (!alive)
        break;
      if (waited == 2000)
        for (auto &child : children)
          if (pid_t pid = child.load())
            kill(-pid, SIGKILL);
      sleepMs(10);
    }
    // Another thread (the handler runs on whichever one the signal found)
    // may still write a file into the directory: again until it is gone,
    // for up to 0.5 s.
    for (unsigned i = 0, e = numDirs.load(); i < e; ++i)
      for (int tries = 0; !removeFlatDirectory(dirs[i]) && tries < 50; ++tries)
        sleepMs(10);
    cleaned.store(true);
  } else {
    // A second signal on another thread (timeout(1) signals the process,
    // then its group): dying now would cut the first one's cleanup short.
    for (int waited = 0; !cleaned.load() && waited < 5000; waited += 10)
      sleepMs(10);
  }
  // Let the signal take its course under the disposition found at
  // installation (delivered when this handler returns).
  sigaction(sig, &previous[sig], nullptr);
  raise(sig);
  errno = savedErrno;
}

void installHandlers() {
  static bool done = false;
  if (done)
    return;
  done = true;
  for (int sig : kSignals) {
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN)
      continue; // e.g. SIGHUP under nohup
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    for (int other : kSignals)
      sigaddset(&action.sa_mask, other);
    action.sa_flags = SA_RESTART;
    previous[sig] = old;
    installed[sig] = sigaction(sig, &action, nullptr) == 0;
  }
}

/// While shardc is being interrupted, the handler (maybe on another thread)
/// finishes the job: don't report the killed compilers as failures.
void waitIfInterrupted() {
  while (interrupted.load())
    sleepMs(100);
}

class BlockSignals {
public:
  BlockSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kSignals)
      sigaddset(&set, sig);
    pthread_sigmask(SIG_BLOCK, &set, &old);
  }
  ~BlockSignals() { pthread_sigmask(SIG_SETMASK, &old, nullptr); }

private:
  sigset_t old;
};

/// Registers `dir` for the handler; false when it cannot take one more.
bool registerDirectory(const std::string &dir) {
  unsigned n = numDirs.load();
  if (n >= kMaxDirs || dir.size() >= sizeof(dirs[0]))
    return false;
  std::memcpy(dirs[n], dir.c_str(), dir.size() + 1);
  numDirs.store(n + 1);
  return true;
}

} // namespace

std::error_code
shardc::createDirectoryRemovedOnSignal(llvm::SmallVectorImpl<char> &dir) {
  installHandlers();
  // Registered before it exists, so that a signal on any thread (MLIR's
  // pool runs already) finds it: the handler skips a path that is not
  // there. The name holds this process's id, so no live process can own
  // a directory of that name (one of a dead process with the same id may
  // be removed with ours). A few tries on a name that exists.
  std::string model = "shardc-" + std::to_string(::getpid()) + "-%%%%%%";
  for (int tries = 0; tries < 3; ++tries) {
    llvm::sys::fs::createUniquePath(model, dir, /*MakeAbsolute=*/true);
    std::string path(dir.data(), dir.size());
    if (!registerDirectory(path))
      return std::make_error_code(std::errc::too_many_files_open);
    std::error_code ec =
        llvm::sys::fs::create_directory(path, /*IgnoreExisting=*/false,
                                        llvm::sys::fs::perms::owner_all);
    if (ec != std::errc::file_exists)
      return ec;
  }
  return std::make_error_code(std::errc::file_exists);
}


//===----------------------------------------------------------------------===//
// Running the tools
//===----------------------------------------------------------------------===//

static std::string envOr(const char *name, const char *fallback) {
  const char *v = std::getenv(name);
  return v && *v ? v : fallback;
}

bool shardc::findRuntime(RuntimeLayout &layout, std::string &error) {
  auto holdsRuntime = [](StringRef dir) {
    return sys::fs::exists(dir + "/libshardc_rt.a");
  };
  // Installed: BIN/shardc beside BIN/../lib/shardc and BIN/../include.
  static int anchor;
  std::string exe = sys::fs::getMainExecutable(nullptr, &anchor);
  SmallString<128> prefix(exe);
  sys::path::remove_filename(prefix); // BIN
  sys::path::remove_filename(prefix); // its parent
  SmallString<128> installedLib(prefix), installedInclude(prefix);
  sys::path::append(installedLib, "lib", "shardc");
  sys::path::append(installedInclude, "include");
  bool installed = !exe.empty() && holdsRuntime(installedLib);
  layout.libDir =
      envOr("SHARDC_RUNTIME_LIB_DIR",
            installed ? installedLib.c_str() : SHARDC_RUNTIME_LIB_DIR);
  SmallString<128> inc(
      envOr("SHARDC_RUNTIME_INCLUDE_DIR",
            installed ? installedInclude.c_str() : SHARDC_RUNTIME_INCLUDE_DIR));
  sys::fs::make_absolute(inc); // the compilers run elsewhere
  layout.includeDir = inc.str().str();
  if (holdsRuntime(layout.libDir) &&
      sys::fs::exists(layout.includeDir + "/shardc/cpu.h"))
    return true;
  error = "cannot find the shardc runtime (libshardc_rt.a and "
          "shardc/cpu.h): not in " +
          layout.libDir + " and " + layout.includeDir +
          ", nor installed beside " +
          (exe.empty() ? std::string("shardc") : exe) +
          " (../lib/shardc, ../include); set SHARDC_RUNTIME_LIB_DIR and "
          "SHARDC_RUNTIME_INCLUDE_DIR";
  return false;
}

namespace {

/// One command, its output going to `log`.
struct Job {
  std::vector<std::string> args;
  std::string log;
  /// Working directory of the process (empty: shardc's).
  std::string cwd;
  pid_t pid = 0;
  int status = 0;
  std::string spawnError;
};

/// The environment of the tools: shardc's, with TMPDIR set to `tmpDir`.
class ToolEnvironment {
public:
  explicit ToolEnvironment(const std::string &tmpDir) {
    for (char **e = environ; e && *e; ++e)
      if (!StringRef(*e).starts_with("TMPDIR="))
        pointers.push_back(*e);
    tmp = "TMPDIR=" + tmpDir;
    pointers.push_back(tmp.data());
    pointers.push_back(nullptr);
  }
  char **get() { return pointers.data(); }

private:
  std::string tmp;
  std::vector<char *> pointers;
};

/// Starts `job` in its own process group; registers it for the signal
/// handler.
bool spawn(Job &job, const std::string &program, ToolEnvironment &env) {
  std::vector<char *> argv;
  for (std::string &a : job.args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, job.log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  if (!job.cwd.empty())
    posix_spawn_file_actions_addchdir_np(&actions, job.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : kSignals)
    sigaddset(&defaults, sig);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
                                      POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  int rc;
  {
    // No signal between the child's start and its registration.
    BlockSignals block;
    rc = posix_spawn(&job.pid, program.c_str(), &actions, &attr, argv.data(),
                     env.get());
    if (rc == 0) {
      for (auto &slot : children) {
        pid_t free = 0;
        if (slot.compare_exchange_strong(free, job.pid))
          break;
      }
    }
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    job.pid = 0;
    job.spawnError = std::strerror(rc);
    return false;
  }
  return true;
}

void unregister(pid_t pid) {
  for (auto &slot : children) {
    pid_t expected = pid;
    if (slot.compare_exchange_strong(expected, 0))
      break;
  }
}

/// `'c++' failed (exit 1): <first error line of the log>`; the whole log
/// with -v.
std::string describeFailure(const Job &job, bool verbose) {
  std::string how;
  if (!job.spawnError.empty())
    how = job.spawnError;
  else if (WIFSIGNALED(job.status))
    how = strsignal(WTERMSIG(job.status));
  else
    how = "exit " + std::to_string(WEXITSTATUS(job.status));
  std::string error = "'" + job.args[0] + "' failed (" + how + ")";
  auto buffer = MemoryBuffer::getFile(job.log);
  if (!buffer)
    return error;
  StringRef log = (*buffer)->getBuffer();
  if (verbose)
    errs() << log;
  SmallVector<StringRef> lines;
  log.split(lines, '\n', -1, false);
  StringRef first = lines.empty() ? StringRef() : lines.front();
  for (StringRef line : lines)
    if (line.contains("error")) {
      first = line;
      break;
    }
  if (!first.empty())
    error += ": " + first.trim().str() +
             (verbose ? "" : " (-v shows the whole log)");
  return error;
}

/// Runs `jobs`, at most `parallel` at once; on failure returns false with
/// the first failed command's message (in job order), after the others
/// have finished. Removes the logs.
bool runJobs(std::vector<Job> &jobs, unsigned parallel, bool verbose,
             const std::string &tmpDir, std::string &error) {
  std::map<std::string, std::string> programs;
  for (Job &job : jobs) {
    if (programs.count(job.args[0]))
      continue;
    ErrorOr<std::string> program = sys::findProgramByName(job.args[0]);
    if (!program) {
      error = "cannot find '" + job.args[0] +
              "' on PATH (set CXX to the C++ compiler)";
      return false;
    }
    programs[job.args[0]] = *program;
  }
  installHandlers();
  ToolEnvironment env(tmpDir);
  size_t next = 0, running = 0;
  bool failed = false;
  std::map<pid_t, Job *> byPid;
  while ((next < jobs.size() && !failed) || running) {
    while (next < jobs.size() && !failed && running < parallel) {
      Job &job = jobs[next++];
      if (verbose) {
        if (!job.cwd.empty())
          errs() << "cd " << job.cwd << " && ";
        for (const std::string &a : job.args)
          errs() << a << " ";
        errs() << "\n";
      }
      if (!spawn(job, programs[job.args[0]], env)) {
        failed = true;
        break;
      }
      byPid[job.pid] = &job;
      ++running;
    }
    if (!running)
      break;
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR)
        continue;
      waitIfInterrupted();
      break; // no children left (cannot happen)
    }
    auto it = byPid.find(pid);
    if (it == byPid.end())
      continue;
    unregister(pid);
    waitIfInterrupted();
    it->second->status = status;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      failed = true;
    byPid.erase(it);
    --running;
  }
  bool ok = true;
  for (Job &job : jobs) {
    if (ok && (!job.spawnError.empty() ||
               (job.pid && (!WIFEXITED(job.status) ||
                            WEXITSTATUS(job.status) != 0)))) {
      error = describeFailure(job, verbose);
      ok = false;
    }
    sys::fs::remove(job.log);
  }
  return ok && !failed;
}

/// `path` relative to the directory `dir` when it lies directly in it,
/// else `path` made absolute.
std::string relativeTo(const std::string &path, StringRef dir) {
  SmallString<128> abs(path);
  sys::fs::make_absolute(abs);
  if (sys::path::parent_path(abs) == dir)
    return sys::path::filename(abs).str();
  return abs.str().str();
}

/// Splits a source at the unit markers: each unit is the text before the
/// first marker followed by one unit's text. None if the source has no
/// marker.
std::vector<std::string> splitUnits(StringRef source) {
  std::vector<std::string> units;
  StringRef marker = shardc::kCppUnitMarker;
  size_t at = source.starts_with(marker) ? 0 : source.find("\n" + marker.str());
  if (at == StringRef::npos)
    return units;
  if (at)
    ++at; // past the newline
  StringRef header = source.take_front(at);
  StringRef rest = source.drop_front(at);
  while (!rest.empty()) {
    size_t end = rest.find("\n" + marker.str(), 1);
    StringRef unit = end == StringRef::npos ? rest : rest.take_front(end + 1);
    units.push_back(header.str() + unit.str());
    rest = rest.drop_front(unit.size());
  }
  return units;
}

} // namespace

bool shardc::buildExecutable(const std::string &source,
                             const std::string &object,
                             const std::string &output,
                             const ToolchainOptions &options,
                             std::string &error) {
  std::string cxx = envOr("CXX", "c++");
  RuntimeLayout runtime;
  if (!findRuntime(runtime, error))
    return false;
  const std::string &libDir = runtime.libDir;
  const std::string &incDir = runtime.includeDir;
  SmallString<128> dir(object);
  sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  sys::fs::make_absolute(dir);
  SmallString<128> stem(object);
  sys::path::replace_extension(stem, "");

  // The units: the source itself, or the parts of a split program.
  std::vector<std::pair<std::string, std::string>> units; // source, object
  std::vector<std::string> partFiles;
  auto cleanup = [&] {
    for (const std::string &f : partFiles)
      sys::fs::remove(f);
  };
  {
    auto buffer = MemoryBuffer::getFile(source);
    if (!buffer) {
      error = "cannot read '" + source + "': " + buffer.getError().message();
      return false;
    }
    std::vector<std::string> parts = splitUnits((*buffer)->getBuffer());
    for (auto [i, text] : llvm::enumerate(parts)) {
      std::string base = (stem + ".u" + Twine(i)).str();
      units.push_back({base + ".cpp", base + ".o"});
      partFiles.push_back(base + ".cpp");
      partFiles.push_back(base + ".o");
      std::error_code ec;
      raw_fd_ostream os(base + ".cpp", ec);
      if (ec) {
        cleanup();
        error = "cannot write '" + base + ".cpp': " + ec.message();
        return false;
      }
      os << text;
    }
    if (parts.empty())
      units.push_back({source, object});
  }

  bool ccache = sys::findProgramByName("ccache") && !std::getenv("SHARDC_NO_CCACHE");
  std::vector<Job> compiles;
  for (auto [i, unit] : llvm::enumerate(units)) {
    Job job;
    if (ccache)
      job.args.push_back("ccache");
    // Run in the build directory on names relative to it: the command
    // line, and so ccache's key, is then the same on every compile of the
    // same program (the directory is a fresh temporary one each time).
    job.cwd = dir.str().str();
    // -fno-trapping-math: no code enables floating-point traps, and without
    // it GCC neither if-converts the NaN-keeping selects of a kernel body
    // (an ordered compare may trap) nor inlines nearbyintf, so those loops
    // stay scalar. NaNs and signed zeros keep their meaning (unlike
    // -ffast-math) and -ffp-contract=off keeps rounding; GCC may then fold
    // a float -> int -> float round trip into trunc(), so kernel bodies
    // convert NaN to integers explicitly (ScalarEmitter's nanToZero).
    job.args.insert(job.args.end(),
                    {cxx, "-std=c++17", "-O2", "-fopenmp", "-fno-math-errno",
                     "-fno-trapping-math", "-ffp-contract=off",
                     "-march=" + options.cpu, "-w", "-I" + incDir});
    if (options.shared)
      job.args.push_back("-fPIC");
    job.args.insert(job.args.end(), {"-c", relativeTo(unit.first, job.cwd),
                                     "-o", relativeTo(unit.second, job.cwd)});
    job.log = (stem + ".cc" + Twine(i) + ".log").str();
    compiles.push_back(std::move(job));
  }
  unsigned parallel = options.jobs;
  if (!parallel) {
    std::string env = envOr("SHARDC_JOBS", "");
    if (StringRef(env).getAsInteger(10, parallel) || !parallel)
      parallel = llvm::hardware_concurrency().compute_thread_count();
  }
  if (!runJobs(compiles, std::max(1u, parallel), options.verbose,
               dir.str().str(), error)) {
    cleanup();
    return false;
  }

  Job link;
  link.args.push_back(cxx);
  for (auto &unit : units)
    link.args.push_back(unit.second);
  link.args.insert(link.args.end(), {"-o", output});
  // A shared library exports the whole C API (shardc/runtime.h), which
  // nothing in it calls: the runtime's archives go in whole.
  if (options.shared)
    link.args.insert(link.args.end(), {"-shared", "-Wl,--whole-archive"});
  else
    link.args.push_back(libDir + "/libshardc_main.a");
  if (options.mpi)
    link.args.push_back(libDir + "/libshardc_rt_mpi.a");
  link.args.push_back(libDir + "/libshardc_rt.a");
  if (options.shared)
    link.args.push_back("-Wl,--no-whole-archive");
  if (options.mpi) {
    SmallVector<StringRef> libs;
    StringRef(SHARDC_MPI_LIBRARIES).split(libs, ' ', -1, false);
    for (StringRef lib : libs)
      link.args.push_back(lib.str());
  }
  link.args.insert(link.args.end(), {"-ldnnl", "-fopenmp", "-lpthread", "-lm"});
  link.log = (stem + ".link.log").str();
  std::vector<Job> links{std::move(link)};
  // An interrupted link leaves no half-written executable.
  sys::RemoveFileOnSignal(output);
  bool ok = runJobs(links, 1, options.verbose, dir.str().str(), error);
  sys::DontRemoveFileOnSignal(output);
  cleanup();
  return ok;
}
