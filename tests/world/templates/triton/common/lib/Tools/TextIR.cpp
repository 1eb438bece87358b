#include "triton/Tools/TextIR.h"

#include <algorithm>
#include <cctype>

namespace mlir {
namespace triton {
namespace text {

namespace {

std::string trimmed(const std::string &s) {
  std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos)
    return "";
  std::size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool startsWith(const std::string &s, const std::string &prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '#' || c == '%' ||
         c == '@' || c == '-';
}

std::string located(const std::string &buffer, unsigned line, unsigned col, const std::string &what) {
  return buffer + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " + what;
}

/// Calls `visit(i)` for each position `i` of `s` from `from` that is outside "..." strings (escapes
/// honoured) until it returns false; `visit` may move `i` on. Returns where it stopped, or npos.
template <typename Visit> std::size_t scanCode(const std::string &s, std::size_t from, Visit visit) {
  bool inString = false;
  for (std::size_t i = from; i < s.size(); ++i) {
    char c = s[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (!visit(i)) {
      return i;
    }
  }
  return std::string::npos;
}

/// The closing ')' of the '(' at `open`; npos when the line ends first.
std::size_t closingParen(const std::string &s, std::size_t open) {
  int depth = 0;
  return scanCode(s, open, [&](std::size_t &i) {
    depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    return depth != 0;
  });
}

bool isLocationAlias(const std::string &line) {
  std::string t = trimmed(line);
  if (!startsWith(t, "#loc"))
    return false;
  std::size_t eq = t.find('=');
  return eq != std::string::npos && trimmed(t.substr(eq + 1)).rfind("loc(", 0) == 0;
}

/// The first top-level occurrence of `what` in `s` from `from` (outside <>, (), [], {} and strings).
std::size_t findTopLevel(const std::string &s, const std::string &what, std::size_t from = 0) {
  int depth = 0;
  return scanCode(s, from, [&](std::size_t &i) {
    char c = s[i];
    if (depth == 0 && s.compare(i, what.size(), what) == 0)
      return false;
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '>')
      ++i;
    else if (c == '<' || c == '(' || c == '[' || c == '{')
      ++depth;
    else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
    return true;
  });
}

std::vector<PassFactory> &registry() {
  static std::vector<PassFactory> factories;
  return factories;
}

} // namespace

std::string withoutLocations(const std::string &line) {
  if (line.find("loc(") == std::string::npos)
    return line;
  std::string out;
  std::size_t start = 0;
  scanCode(line, 0, [&](std::size_t &i) {
    if (line.compare(i, 4, "loc(") != 0 || (i > 0 && isIdentifierChar(line[i - 1])))
      return true;
    std::size_t end = closingParen(line, i + 3);
    if (end == std::string::npos)
      return false; // not IR a printer wrote: the rest stays as it is
    std::string kept = line.substr(start, i - start);
    while (!kept.empty() && kept.back() == ' ')
      kept.pop_back();
    out += kept;
    start = end + 1;
    i = end;
    return true;
  });
  return out + line.substr(std::min(start, line.size()));
}

bool parseModule(const std::string &text, const std::string &bufferName, unsigned firstLine, Module &out,
                 std::string &error) {
  out = Module();
  out.bufferName = bufferName;
  int depth = 0;
  bool inResources = false, sawModule = false, sawOp = false;
  unsigned number = firstLine - 1, resourceLine = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    ++number;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    std::string t = trimmed(line);
    if (inResources) {
      if (startsWith(t, "#-}"))
        inResources = false;
      else
        out.resources += line + "\n";
      continue;
    }
    if (t.empty() || startsWith(t, "//"))
      continue;
    if (startsWith(t, "{-#")) {
      inResources = t.find("#-}") == std::string::npos;
      resourceLine = number;
      continue;
    }
    unsigned col = static_cast<unsigned>(line.find_first_not_of(" \t") + 1);
    if (depth == 0) {
      bool module = startsWith(t, "module") || startsWith(t, "builtin.module") || startsWith(t, "\"builtin.module\"");
      std::string word = t.substr(0, t.find_first_of(" ({<:="));
      bool dialectOp = word.find('.') != std::string::npos && word.front() != '.' &&
                       std::all_of(word.begin(), word.end(), [](char c) { return isIdentifierChar(c); });
      bool alias = t[0] == '#' || t[0] == '!';
      if (!module && !alias && !dialectOp && t[0] != '%')
        return error = located(bufferName, number, col, "custom op '" + word + "' is unknown"), false;
      sawModule |= module;
      sawOp |= !alias;
    }
    std::size_t unexpected = scanCode(line, 0, [&](std::size_t &i) {
      char c = line[i];
      depth += (c == '{' || c == '(' || c == '[') ? 1 : (c == '}' || c == ')' || c == ']') ? -1 : 0;
      return depth >= 0;
    });
    if (unexpected != std::string::npos)
      return error = located(bufferName, number, static_cast<unsigned>(unexpected + 1),
                             std::string("unexpected '") + line[unexpected] + "'"),
             false;
    out.lines.push_back(line);
    out.lineNumbers.push_back(number);
  }
  if (inResources)
    return error = located(bufferName, resourceLine, 1, "expected '#-}' to end the resource block"), false;
  if (depth != 0)
    return error = located(bufferName, number, 1, "expected '}' before the end of the input"), false;
  if (!sawModule && sawOp) {
    // Top-level operations without a module: MLIR wraps them in an implicit one.
    std::vector<std::string> wrapped;
    std::vector<unsigned> numbers;
    for (std::size_t i = 0; i < out.lines.size(); ++i) {
      std::string t = trimmed(out.lines[i]);
      if (t[0] == '#' || t[0] == '!') {
        wrapped.push_back(out.lines[i]);
        numbers.push_back(out.lineNumbers[i]);
      }
    }
    wrapped.push_back("module {");
    numbers.push_back(firstLine);
    for (std::size_t i = 0; i < out.lines.size(); ++i) {
      std::string t = trimmed(out.lines[i]);
      if (t[0] != '#' && t[0] != '!') {
        wrapped.push_back("  " + out.lines[i]);
        numbers.push_back(out.lineNumbers[i]);
      }
    }
    wrapped.push_back("}");
    numbers.push_back(number);
    out.lines = wrapped;
    out.lineNumbers = numbers;
  } else if (!sawModule) {
    out.lines.push_back("module {");
    out.lines.push_back("}");
    out.lineNumbers.push_back(firstLine);
    out.lineNumbers.push_back(firstLine);
  }
  return true;
}

std::string printModule(const Module &module, bool debugInfo) {
  std::string out;
  for (const std::string &line : module.lines) {
    if (!debugInfo && isLocationAlias(line))
      continue;
    std::string printed = debugInfo ? line : withoutLocations(line);
    while (!printed.empty() && (printed.back() == ' ' || printed.back() == '\t'))
      printed.pop_back();
    out += printed + "\n";
  }
  return out;
}

bool parseOpLine(const std::string &line, OpLine &op) {
  std::string body = withoutLocations(line);
  std::size_t first = body.find_first_not_of(' ');
  if (first == std::string::npos)
    return false;
  op = OpLine();
  op.indent = body.substr(0, first);
  std::string rest = trimmed(body);
  if (rest[0] == '%') {
    std::size_t eq = findTopLevel(rest, " = ");
    if (eq == std::string::npos)
      return false;
    op.result = rest.substr(0, eq);
    rest = rest.substr(eq + 3);
  }
  std::size_t end = rest.find_first_of(" ({<");
  op.name = rest.substr(0, end);
  if (op.name.find('.') == std::string::npos)
    return false;
  rest = end == std::string::npos ? "" : trimmed(rest.substr(end));
  std::size_t colon = findTopLevel(rest, " : ");
  if (colon == std::string::npos && startsWith(rest, ": "))
    colon = 0;
  op.operands = trimmed(rest.substr(0, colon));
  if (colon != std::string::npos) {
    std::string types = rest.substr(colon + (rest[colon] == ':' ? 2 : 3));
    std::size_t comma = findTopLevel(types, ",");
    std::size_t arrow = findTopLevel(types, " ->");
    op.type = trimmed(types.substr(0, std::min(comma, arrow)));
  }
  return true;
}

std::vector<std::string> valueNames(const std::string &operands) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] != '%')
      continue;
    std::size_t j = i + 1;
    while (j < operands.size() && (std::isalnum(static_cast<unsigned char>(operands[j])) || operands[j] == '_' ||
                                   operands[j] == '$' || operands[j] == '.' || operands[j] == '-' || operands[j] == '#'))
      ++j;
    names.push_back(operands.substr(i, j - i));
    i = j - 1;
  }
  return names;
}

bool Pass::setOption(const std::string &name, const std::string &, std::string &error) {
  error = "'" + getArgument() + "' has no option named '" + name + "'";
  return false;
}

void registerPass(PassFactory factory) { registry().push_back(std::move(factory)); }

std::unique_ptr<Pass> createPass(const std::string &argument) {
  for (const PassFactory &factory : registry()) {
    std::unique_ptr<Pass> pass = factory();
    if (pass->getArgument() == argument)
      return pass;
  }
  return nullptr;
}

std::vector<std::unique_ptr<Pass>> registeredPasses() {
  std::vector<std::unique_ptr<Pass>> passes;
  for (const PassFactory &factory : registry())
    passes.push_back(factory());
  std::sort(passes.begin(), passes.end(),
            [](const std::unique_ptr<Pass> &a, const std::unique_ptr<Pass> &b) {
              return a->getArgument() < b->getArgument();
            });
  return passes;
}

} // namespace text
} // namespace triton
} // namespace mlir
