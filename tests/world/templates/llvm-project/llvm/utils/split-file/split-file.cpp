// split-file: splits an input file into parts at lines "//--- <name>" (or "#--- <name>").
#include "llvm/Support/StringUtils.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <vector>

// The lines of a file as std::getline reads them (no empty last line after a final newline); false when
// the file cannot be opened.
static bool readLines(const std::string &path, std::vector<std::string> &lines) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return false;
  std::string text;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
    text.append(buf, n);
  std::fclose(f);
  lines = llvm::split(text, '\n', true);
  if (!text.empty() && text.back() == '\n')
    lines.pop_back();
  else if (text.empty())
    lines.clear();
  return true;
}

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
  std::vector<std::string> lines;
  if (!readLines(argv[1], lines)) {
    llvm::errs() << "error: cannot open " << argv[1] << "\n";
    return 1;
  }
  std::string outDir = argv[2];
  if (!makeDirs(outDir)) {
    llvm::errs() << "error: cannot create " << outDir << "\n";
    return 1;
  }
  std::FILE *out = nullptr;
  int parts = 0;
  for (const std::string &line : lines) {
    std::string_view l = line;
    if (llvm::startsWith(l, "//--- ") || llvm::startsWith(l, "#--- ")) {
      std::string name(llvm::trim(l.substr(l.find(' ') + 1)));
      std::string p = outDir + "/" + name;
      makeDirs(p.substr(0, p.find_last_of('/')));
      if (out)
        std::fclose(out);
      out = std::fopen(p.c_str(), "w");
      ++parts;
      continue;
    }
    if (out) {
      std::fwrite(line.data(), 1, line.size(), out);
      std::fputc('\n', out);
    }
  }
  if (out)
    std::fclose(out);
  if (parts == 0) {
    llvm::errs() << "error: " << argv[1] << ": no part separator was found\n";
    return 1;
  }
  return 0;
}
