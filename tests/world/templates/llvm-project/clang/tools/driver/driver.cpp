// clang driver (miniature): reports its version and targets, and "compiles" CUDA device code the way
// Triton's GSan runtime build runs it (-x cuda ... -S -emit-llvm -o file.ll): it finds the CUDA
// installation as clang's CudaInstallationDetector does (--cuda-path, else /usr/local/cuda; its
// include/ and bin/ and lib/ or lib64/ must exist unless -nocudainc), resolves every #include of the
// source against the include paths, and writes a small text module. Anything else is refused.
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/Version.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetRegistry.h"

#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

struct Compile {
  std::string language, cudaPath = "/usr/local/cuda", input, output;
  bool noCudaInc = false, emitLLVM = false, assembly = false;
  std::vector<std::string> includeDirs;
};

bool isDir(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// `dir`/`name` as std::filesystem's operator/ joins them: an absolute name stays as it is, an empty
// dir adds nothing, a dir that ends with '/' no second one.
std::string joined(const std::string &dir, const std::string &name) {
  if (!name.empty() && name[0] == '/')
    return name;
  if (dir.empty() || dir.back() == '/')
    return dir + name;
  return dir + "/" + name;
}

// The header `name` of `#include "name"` (quoted: the including file's folder first) or <name>.
bool findHeader(const std::string &name, bool quoted, const std::string &from, const Compile &c) {
  std::size_t slash = from.rfind('/');
  if (quoted && exists(joined(slash == std::string::npos ? "" : from.substr(0, slash + 1), name)))
    return true;
  for (const std::string &dir : c.includeDirs)
    if (exists(joined(dir, name)))
      return true;
  return false;
}

int compileCuda(const Compile &c, clang::DiagnosticsEngine &diags) {
  Compile with = c;
  if (!c.noCudaInc) {
    const std::string root = c.cudaPath;
    bool lib = isDir(root + "/lib") || isDir(root + "/lib64");
    if (!(isDir(root + "/include") && isDir(root + "/bin") && lib)) {
      diags.error("cannot find CUDA installation; provide its path via '--cuda-path', or pass '-nocudainc' to build"
                  " without CUDA includes");
      diags.print();
      return 1;
    }
    with.includeDirs.push_back(root + "/include");
    // clang's CUDA runtime wrapper (__clang_cuda_runtime_wrapper.h) includes "cuda.h" first.
    if (!findHeader("cuda.h", false, c.input, with)) {
      llvm::errs() << "In file included from <built-in>:1:\n"
                   << "__clang_cuda_runtime_wrapper.h:55:10: fatal error: 'cuda.h' file not found\n";
      return 1;
    }
  }
  std::FILE *source = std::fopen(c.input.c_str(), "rb");
  if (!source) {
    diags.error("no such file or directory: '" + c.input + "'");
    diags.print();
    return 1;
  }
  std::string text;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, source)) > 0;)
    text.append(buf, n);
  std::fclose(source);
  unsigned number = 0;
  for (std::size_t pos = 0; pos < text.size();) { // the lines as std::getline reads them
    std::size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    ++number;
    std::size_t at = line.find("#include");
    if (at == std::string::npos || line.find_first_not_of(" \t") != at)
      continue;
    std::size_t open = line.find_first_of("\"<", at);
    if (open == std::string::npos)
      continue;
    std::size_t close = line.find(line[open] == '"' ? '"' : '>', open + 1);
    std::string name = line.substr(open + 1, close - open - 1);
    if (!findHeader(name, line[open] == '"', c.input, with)) {
      llvm::errs() << c.input << ":" << number << ":" << (open + 1) << ": fatal error: '" << name
                   << "' file not found\n";
      return 1;
    }
  }
  std::FILE *out = std::fopen(c.output.c_str(), "w");
  if (!out)
    return 1;
  std::string module = "; ModuleID = '" + c.input + "'\n" + "source_filename = \"" + c.input + "\"\n" +
                       "target triple = \"nvptx64-nvidia-cuda\"\n";
  bool written = std::fwrite(module.data(), 1, module.size(), out) == module.size();
  std::fclose(out);
  return written ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  clang::DiagnosticsEngine diags;
  Compile c;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
    if (a == "--version" || a == "-v") {
      llvm::outs() << clang::getClangFullVersion() << "\n";
      llvm::outs() << "Target: " << LLVM_DEFAULT_TARGET_TRIPLE << "\n";
      return 0;
    }
    if (a == "-print-targets") {
      for (const llvm::Target &t : llvm::getRegisteredTargets())
        llvm::outs() << "    " << t.name << "\n";
      return 0;
    }
    if (a == "-x")
      c.language = next();
    else if (a.rfind("--cuda-path=", 0) == 0)
      c.cudaPath = a.substr(12);
    else if (a == "-nocudainc")
      c.noCudaInc = true;
    else if (a == "-o")
      c.output = next();
    else if (a == "-isystem" || a == "-I")
      c.includeDirs.push_back(next());
    else if (a.rfind("-I", 0) == 0)
      c.includeDirs.push_back(a.substr(2));
    else if (a == "-isysroot")
      next();
    else if (a == "-emit-llvm")
      c.emitLLVM = true;
    else if (a == "-S")
      c.assembly = true;
    else if (!a.empty() && a[0] == '-')
      continue; // -O3, -std=, --cuda-gpu-arch=, -nocudalib, -W...: accepted, no effect here
    else if (c.input.empty())
      c.input = a;
    else
      diags.error("the miniature clang compiles one input (got '" + a + "')");
  }
  if (argc == 1 || c.input.empty())
    diags.error("no input files");
  else if (c.language != "cuda" || !c.emitLLVM || !c.assembly || c.output.empty())
    diags.error("the miniature clang only answers --version and -print-targets, and compiles CUDA device code "
                "with -x cuda -S -emit-llvm -o FILE");
  if (diags.hasErrorOccurred()) {
    diags.print();
    return 1;
  }
  return compileCuda(c, diags);
}
