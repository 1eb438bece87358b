// FileCheck: verifies that an input (stdin or --input-file) matches the CHECK lines of a check file.
// Supports the directives Triton's lit tests use most: CHECK, CHECK-NEXT, CHECK-NOT, CHECK-LABEL,
// CHECK-SAME, and --check-prefix / --check-prefixes.
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringUtils.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace llvm;

namespace {

struct Directive {
  std::string kind; // "", "NEXT", "NOT", "LABEL", "SAME"
  std::string pattern;
  std::size_t line;
};

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path);
  if (!in)
    return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

std::vector<Directive> parseChecks(const std::string &text, const std::vector<std::string> &prefixes) {
  std::vector<Directive> out;
  std::vector<std::string> lines = split(text, '\n', true);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    for (const std::string &p : prefixes) {
      for (const char *kind : {"-NEXT:", "-NOT:", "-LABEL:", "-SAME:", ":"}) {
        std::string tag = p + kind;
        auto pos = lines[i].find(tag);
        if (pos == std::string::npos)
          continue;
        std::string k = kind;
        k = k.size() > 1 ? k.substr(1, k.size() - 2) : "";
        out.push_back({k, std::string(trim(std::string_view(lines[i]).substr(pos + tag.size()))), i + 1});
        goto nextLine;
      }
    }
  nextLine:;
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  cl::ParsedArgs args = cl::ParseCommandLineOptions(argc, argv);
  if (args.has("version")) {
    cl::PrintVersionMessage("FileCheck");
    return 0;
  }
  if (args.positional.size() != 1) {
    errs() << "FileCheck: usage: FileCheck [--check-prefix=P] [--input-file=F] <check-file>\n";
    return 2;
  }
  std::vector<std::string> prefixes;
  for (const char *opt : {"check-prefix", "check-prefixes"})
    for (const std::string &p : split(args.get(opt), ','))
      prefixes.push_back(p);
  if (prefixes.empty())
    prefixes.push_back("CHECK");

  std::string checkText, input;
  if (!readFile(args.positional[0], checkText)) {
    errs() << "Could not open check file '" << args.positional[0] << "'\n";
    return 2;
  }
  if (args.has("input-file")) {
    if (!readFile(args.get("input-file"), input)) {
      errs() << "Could not open input file '" << args.get("input-file") << "'\n";
      return 2;
    }
  } else {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    input = ss.str();
  }
  std::vector<Directive> checks = parseChecks(checkText, prefixes);
  if (checks.empty()) {
    errs() << "error: no check strings found with prefix '" << prefixes[0] << ":'\n";
    return 2;
  }

  std::vector<std::string> lines = split(input, '\n', true);
  std::size_t cur = 0;           // next line to search
  std::size_t lastMatch = 0;     // line of the previous positive match (1-based; 0 = none)
  std::vector<const Directive *> pendingNot;
  for (const Directive &d : checks) {
    if (d.kind == "NOT") {
      pendingNot.push_back(&d);
      continue;
    }
    std::size_t found = lines.size();
    if (d.kind == "SAME") {
      if (lastMatch && lines[lastMatch - 1].find(d.pattern) != std::string::npos)
        found = lastMatch - 1;
    } else if (d.kind == "NEXT") {
      if (lastMatch < lines.size() && lines[lastMatch].find(d.pattern) != std::string::npos)
        found = lastMatch;
    } else {
      for (std::size_t i = cur; i < lines.size(); ++i)
        if (lines[i].find(d.pattern) != std::string::npos) {
          found = i;
          break;
        }
    }
    if (found == lines.size()) {
      std::string kind = d.kind.empty() ? "" : "-" + d.kind;
      errs() << args.positional[0] << ":" << d.line << ": error: " << prefixes[0] << kind
             << ": expected string not found in input\n"
             << prefixes[0] << kind << ": " << d.pattern << "\n";
      return 1;
    }
    for (const Directive *n : pendingNot)
      for (std::size_t i = cur; i < found; ++i)
        if (lines[i].find(n->pattern) != std::string::npos) {
          errs() << args.positional[0] << ":" << n->line << ": error: " << prefixes[0]
                 << "-NOT: excluded string found in input\n";
          return 1;
        }
    pendingNot.clear();
    lastMatch = found + 1;
    cur = d.kind == "SAME" ? found : found + 1;
  }
  for (const Directive *n : pendingNot)
    for (std::size_t i = cur; i < lines.size(); ++i)
      if (lines[i].find(n->pattern) != std::string::npos) {
        errs() << args.positional[0] << ":" << n->line << ": error: " << prefixes[0]
               << "-NOT: excluded string found in input\n";
        return 1;
      }
  return 0;
}
