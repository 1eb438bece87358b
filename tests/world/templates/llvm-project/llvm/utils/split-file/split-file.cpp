// split-file: splits an input file into parts at lines "//--- <name>" (or "#--- <name>").
#include "llvm/Support/StringUtils.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <fstream>
#include <string>
#include <sys/stat.h>

// mkdir -p
static bool makeDirs(const std::string &path) {
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      std::string part = path.substr(0, i);
      if (mkdir(part.c_str(), 0777) != 0 && errno != EEXIST)
        return false;
    }
  }
  return true;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: split-file <input> <output-directory>\n";
    return 1;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    llvm::errs() << "error: cannot open " << argv[1] << "\n";
    return 1;
  }
  std::string outDir = argv[2];
  if (!makeDirs(outDir)) {
    llvm::errs() << "error: cannot create " << outDir << "\n";
    return 1;
  }
  std::ofstream out;
  std::string line;
  int parts = 0;
  while (std::getline(in, line)) {
    std::string_view l = line;
    if (llvm::startsWith(l, "//--- ") || llvm::startsWith(l, "#--- ")) {
      std::string name(llvm::trim(l.substr(l.find(' ') + 1)));
      std::string p = outDir + "/" + name;
      makeDirs(p.substr(0, p.find_last_of('/')));
      out.close();
      out.open(p);
      ++parts;
      continue;
    }
    if (out.is_open())
      out << line << "\n";
  }
  if (parts == 0) {
    llvm::errs() << "error: " << argv[1] << ": no part separator was found\n";
    return 1;
  }
  return 0;
}
