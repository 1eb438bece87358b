// llvm-config: prints how this LLVM was built. Like the real tool it locates its prefix from its
// own path, so it answers correctly both in the build tree and in an install tree.
#include "BuildVariables.inc"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/VCSRevision.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetRegistry.h"

#include <climits>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

static std::string dirname(const std::string &p) {
  auto slash = p.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : (slash == 0 ? std::string("/") : p.substr(0, slash));
}

static std::string selfPrefix(const char *argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  std::string exe;
  if (n > 0) {
    exe.assign(buf, static_cast<std::size_t>(n));
  } else if (realpath(argv0, buf)) {
    exe = buf;
  } else {
    exe = argv0;
  }
  return dirname(dirname(exe));
}

static bool sameFile(const std::string &a, const std::string &b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void usage() {
  errs() << "usage: llvm-config <OPTION>... [<COMPONENT>...]\n\n"
            "Options:\n"
            "  --version         Print LLVM version.\n"
            "  --vcs-revision    Print the source revision (git commit) LLVM was built from.\n"
            "  --build-mode      Print build mode of LLVM tree (e.g. Debug or Release).\n"
            "  --assertion-mode  Print assertion mode of LLVM tree (ON or OFF).\n"
            "  --targets-built   List of all targets currently built.\n"
            "  --projects-built  List of all projects built with LLVM.\n"
            "  --host-target     Target triple used to configure LLVM.\n"
            "  --prefix          Print the installation prefix.\n"
            "  --bindir          Directory containing LLVM executables.\n"
            "  --includedir      Directory containing LLVM headers.\n"
            "  --libdir          Directory containing LLVM libraries.\n"
            "  --cmakedir        Directory containing LLVM CMake modules.\n"
            "  --cxxflags        C++ compiler flags for files that include LLVM headers.\n"
            "  --src-root        The source root LLVM was built from.\n"
            "  --obj-root        The object root LLVM was built into.\n";
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage();
    return 1;
  }
  std::string prefix = selfPrefix(argv[0]);
  bool inBuildTree = sameFile(prefix, LLVM_OBJ_ROOT);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--version")
      outs() << LLVM_VERSION_STRING << "\n";
    else if (a == "--vcs-revision")
      outs() << LLVM_REVISION << "\n";
    else if (a == "--build-mode")
      outs() << LLVM_BUILDMODE << "\n";
    else if (a == "--assertion-mode")
      outs() << LLVM_ASSERTION_MODE << "\n";
    else if (a == "--targets-built") {
      std::string sep;
      for (const Target &t : getRegisteredTargets()) {
        outs() << sep << t.name;
        sep = " ";
      }
      outs() << "\n";
    } else if (a == "--projects-built")
      outs() << LLVM_PROJECTS_SPACE << "\n";
    else if (a == "--host-target")
      outs() << LLVM_HOST_TRIPLE << "\n";
    else if (a == "--prefix")
      outs() << prefix << "\n";
    else if (a == "--bindir")
      outs() << prefix + "/bin" << "\n";
    else if (a == "--includedir")
      outs() << (inBuildTree ? std::string(LLVM_SRC_ROOT) + "/include" : prefix + "/include") << "\n";
    else if (a == "--libdir")
      outs() << prefix + "/lib" << "\n";
    else if (a == "--cmakedir")
      outs() << prefix + "/lib/cmake/llvm" << "\n";
    else if (a == "--cxxflags")
      outs() << LLVM_CXXFLAGS << "\n";
    else if (a == "--src-root")
      outs() << LLVM_SRC_ROOT << "\n";
    else if (a == "--obj-root")
      outs() << LLVM_OBJ_ROOT << "\n";
    else {
      errs() << "llvm-config: unknown option '" << a << "'\n";
      usage();
      return 1;
    }
  }
  return 0;
}
