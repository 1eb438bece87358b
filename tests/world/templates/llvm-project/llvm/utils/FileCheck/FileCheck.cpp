// FileCheck: verifies that an input (stdin or --input-file) matches the CHECK lines of a check file.
// Supports the directives Triton's lit tests use most: CHECK, CHECK-NEXT, CHECK-NOT, CHECK-LABEL,
// CHECK-SAME, and --check-prefix / --check-prefixes; and in patterns, as the real one: {{regex}},
// [[NAME:regex]] (defines NAME), [[NAME]] (uses it), global [[$NAME...]] variables, and the local
// ones forgotten at each CHECK-LABEL (--enable-var-scope, which Triton's lit.cfg.py always sets).
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringUtils.h"
#include "llvm/Support/raw_ostream.h"

#include <regex.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace llvm;

namespace {

struct Directive {
  std::string kind; // "", "NEXT", "NOT", "LABEL", "SAME"
  std::string pattern;
  std::size_t line;
};

void readAll(std::FILE *f, std::string &out) {
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
    out.append(buf, n);
}

bool readFile(const std::string &path, std::string &out) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return false;
  readAll(f, out);
  std::fclose(f);
  return true;
}

// The number of groups a POSIX extended regular expression has (its re_nsub), or -1 if it is invalid.
long groupCount(const std::string &re) {
  regex_t compiled;
  if (regcomp(&compiled, re.c_str(), REG_EXTENDED) != 0)
    return -1;
  long n = static_cast<long>(compiled.re_nsub);
  regfree(&compiled);
  return n;
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

// A pattern as a POSIX extended regular expression, as the real FileCheck's llvm::Regex reads it:
// literal text escaped, {{re}} as a group around re, [[N:re]] a group whose match becomes variable N,
// [[N]] the value N has. `defs` gets the names of the variables and the numbers of their groups, in
// order (ERE has no non-capturing groups, so the groups of {{re}} and of nested ones are counted).
// `invalid` is set when a {{re}} or [[N:re]] is not a valid regular expression.
bool toRegex(const std::string &pattern, const std::map<std::string, std::string> &vars, std::string &re,
             std::vector<std::pair<std::string, std::size_t>> &defs, bool &invalid, std::string &error) {
  std::size_t groups = 0;
  static const std::string special = "\\^$.|?*+()[]{}";
  for (std::size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 2, "{{") == 0) {
      std::size_t end = pattern.find("}}", i + 2);
      if (end == std::string::npos) {
        error = "missing '}}' in " + pattern;
        return false;
      }
      std::string sub = pattern.substr(i + 2, end - i - 2);
      long n = groupCount(sub);
      invalid = invalid || n < 0;
      groups += 1 + (n < 0 ? 0 : n);
      re += "(" + sub + ")";
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
        std::string sub = body.substr(colon + 1);
        long n = groupCount(sub);
        invalid = invalid || n < 0;
        defs.push_back({body.substr(0, colon), ++groups});
        groups += n < 0 ? 0 : n;
        re += "(" + sub + ")";
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
  std::vector<std::pair<std::string, std::size_t>> defs;
  bool invalid = false;
  if (!toRegex(pattern, vars, re, defs, invalid, error))
    return false;
  regex_t compiled;
  if (invalid || regcomp(&compiled, re.c_str(), REG_EXTENDED) != 0) {
    error = "invalid regex in " + pattern;
    return false;
  }
  std::vector<regmatch_t> m(compiled.re_nsub + 1);
  bool found = regexec(&compiled, line.c_str(), m.size(), m.data(), 0) == 0;
  regfree(&compiled);
  if (!found)
    return false;
  // Groups are numbered in order of their '('.
  for (const auto &[name, group] : defs) {
    const regmatch_t &g = m[group];
    vars[name] = g.rm_so < 0 ? std::string() : line.substr(g.rm_so, g.rm_eo - g.rm_so);
  }
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
    readAll(stdin, input);
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
