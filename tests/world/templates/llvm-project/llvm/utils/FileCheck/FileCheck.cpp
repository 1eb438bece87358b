// FileCheck: verifies that an input (stdin or --input-file) matches the CHECK lines of a check file.
// Supports the directives Triton's lit tests use most: CHECK, CHECK-NEXT, CHECK-NOT, CHECK-LABEL,
// CHECK-SAME, and --check-prefix / --check-prefixes; and in patterns, as the real one: {{regex}},
// [[NAME:regex]] (defines NAME), [[NAME]] (uses it), global [[$NAME...]] variables, and the local
// ones forgotten at each CHECK-LABEL (--enable-var-scope, which Triton's lit.cfg.py always sets).
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringUtils.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <iostream>
#include <map>
#include <regex>
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

// A pattern as a regular expression: literal text escaped, {{re}} as it is, [[N:re]] a capture whose
// value becomes variable N, [[N]] the value N has. `defs` gets the names of the captures, in order.
bool toRegex(const std::string &pattern, const std::map<std::string, std::string> &vars, std::string &re,
             std::vector<std::string> &defs, std::string &error) {
  static const std::string special = "\\^$.|?*+()[]{}";
  for (std::size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 2, "{{") == 0) {
      std::size_t end = pattern.find("}}", i + 2);
      if (end == std::string::npos) {
        error = "missing '}}' in " + pattern;
        return false;
      }
      re += "(?:" + pattern.substr(i + 2, end - i - 2) + ")";
      i = end + 2;
    } else if (pattern.compare(i, 2, "[[") == 0) {
      std::size_t end = pattern.find("]]", i + 2);
      if (end == std::string::npos) {
        error = "missing ']]' in " + pattern;
        return false;
      }
      std::string body = pattern.substr(i + 2, end - i - 2);
      std::size_t colon = body.find(':');
      if (colon == std::string::npos) {
        auto found = vars.find(body);
        if (found == vars.end()) {
          error = "undefined variable: " + body;
          return false;
        }
        for (char c : found->second)
          re += (special.find(c) != std::string::npos ? std::string("\\") : std::string()) + c;
      } else {
        defs.push_back(body.substr(0, colon));
        re += "(" + body.substr(colon + 1) + ")";
      }
      i = end + 2;
    } else {
      char c = pattern[i++];
      re += (special.find(c) != std::string::npos ? std::string("\\") : std::string()) + c;
    }
  }
  return true;
}

// Does `line` match `pattern`? Plain text is a substring; a pattern with {{ or [[ a regex search,
// whose captures define variables.
bool matches(const std::string &line, const std::string &pattern, std::map<std::string, std::string> &vars,
             std::string &error) {
  if (pattern.find("{{") == std::string::npos && pattern.find("[[") == std::string::npos)
    return line.find(pattern) != std::string::npos;
  std::string re;
  std::vector<std::string> defs;
  if (!toRegex(pattern, vars, re, defs, error))
    return false;
  std::smatch m;
  try {
    if (!std::regex_search(line, m, std::regex(re)))
      return false;
  } catch (const std::regex_error &) {
    error = "invalid regex in " + pattern;
    return false;
  }
  // Captures are numbered in order of their '(' ; {{...}} groups are non-capturing.
  for (std::size_t k = 0; k < defs.size() && k + 1 < m.size(); ++k)
    vars[defs[k]] = m[k + 1].str();
  return true;
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
  std::map<std::string, std::string> vars;
  std::string error;
  auto fail = [&](const Directive &d) {
    std::string kind = d.kind.empty() ? "" : "-" + d.kind;
    errs() << args.positional[0] << ":" << d.line << ": error: " << prefixes[0] << kind << ": "
           << (error.empty() ? "expected string not found in input" : error) << "\n"
           << prefixes[0] << kind << ": " << d.pattern << "\n";
    return 1;
  };
  for (const Directive &d : checks) {
    if (d.kind == "NOT") {
      pendingNot.push_back(&d);
      continue;
    }
    if (d.kind == "LABEL")
      for (auto it = vars.begin(); it != vars.end();)
        it = it->first.rfind("$", 0) == 0 ? std::next(it) : vars.erase(it);
    std::size_t found = lines.size();
    if (d.kind == "SAME") {
      if (lastMatch && matches(lines[lastMatch - 1], d.pattern, vars, error))
        found = lastMatch - 1;
    } else if (d.kind == "NEXT") {
      if (lastMatch < lines.size() && matches(lines[lastMatch], d.pattern, vars, error))
        found = lastMatch;
    } else {
      for (std::size_t i = cur; i < lines.size() && error.empty(); ++i)
        if (matches(lines[i], d.pattern, vars, error)) {
          found = i;
          break;
        }
    }
    if (found == lines.size())
      return fail(d);
    for (const Directive *n : pendingNot)
      for (std::size_t i = cur; i < found; ++i)
        if (matches(lines[i], n->pattern, vars, error)) {
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
      if (matches(lines[i], n->pattern, vars, error)) {
        errs() << args.positional[0] << ":" << n->line << ": error: " << prefixes[0]
               << "-NOT: excluded string found in input\n";
        return 1;
      }
  return 0;
}
