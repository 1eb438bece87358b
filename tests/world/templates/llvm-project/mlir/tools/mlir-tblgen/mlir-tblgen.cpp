// mlir-tblgen: reads "def <Name> : Op<"<mnemonic>", <operands>>;" records and writes C++ for them.
//   -gen-op-decls <file.td> -o <out.inc>   an X-macro list MLIR_BUILTIN_OPS and name constants
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringUtils.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace llvm;

struct Record {
  std::string name, mnemonic;
  unsigned operands;
};

int main(int argc, char **argv) {
  cl::ParsedArgs args = cl::ParseCommandLineOptions(argc, argv);
  if (args.has("version")) {
    cl::PrintVersionMessage("mlir-tblgen");
    return 0;
  }
  if (!args.has("gen-op-decls") || args.positional.size() != 1 || !args.has("o")) {
    // "-o out" arrives as option "o" with an empty value followed by a positional; accept both forms.
    if (!(args.has("gen-op-decls") && args.positional.size() == 2 && args.has("o"))) {
      errs() << "usage: mlir-tblgen -gen-op-decls <input.td> -o <output.inc>\n";
      return 1;
    }
  }
  std::string input = args.positional[0];
  std::string output = args.get("o");
  if (output.empty())
    output = args.positional.at(1);
  std::FILE *in = std::fopen(input.c_str(), "rb");
  if (!in) {
    errs() << "Could not open input file '" << input << "'\n";
    return 1;
  }
  std::string text;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;)
    text.append(buf, n);
  std::fclose(in);
  std::vector<std::string> lines = split(text, '\n', true);
  if (!lines.empty() && lines.back().empty())
    lines.pop_back(); // as std::getline: no empty line after the last newline
  std::vector<Record> records;
  unsigned lineNo = 0;
  for (const std::string &line : lines) {
    ++lineNo;
    std::string_view t = trim(line);
    if (t.empty() || startsWith(t, "//"))
      continue;
    // def <Name> : Op<"<mnemonic>", <operands>>;
    Record r;
    std::size_t colon = t.find(':'), q1 = t.find('"'), q2 = t.find('"', q1 + 1), comma = t.find(',', q2);
    std::size_t close = t.find('>', comma);
    if (!startsWith(t, "def ") || colon == std::string_view::npos || q2 == std::string_view::npos ||
        comma == std::string_view::npos || close == std::string_view::npos ||
        trim(t.substr(colon + 1, q1 - colon - 1)) != "Op<") {
      errs() << input << ":" << lineNo << ": error: expected 'def Name : Op<\"mnemonic\", N>;'\n";
      return 1;
    }
    r.name = std::string(trim(t.substr(4, colon - 4)));
    r.mnemonic = std::string(t.substr(q1 + 1, q2 - q1 - 1));
    std::string count(trim(t.substr(comma + 1, close - comma - 1)));
    if (!isHex(count) || count.find_first_not_of("0123456789") != std::string::npos) {
      errs() << input << ":" << lineNo << ": error: operand count must be a number\n";
      return 1;
    }
    r.operands = static_cast<unsigned>(std::stoul(count));
    records.push_back(r);
  }
  std::string inc;
  inc += "/*===- TableGen'erated file -------------------------------------*- C++ -*-===*\\\n"
        "|* Op Declarations                                                            *|\n"
        "\\*===----------------------------------------------------------------------===*/\n\n";
  inc += "#define MLIR_BUILTIN_OPS \\\n";
  for (const Record &r : records)
    inc += "  MLIR_OP(" + r.name + ", \"" + r.mnemonic + "\", " + std::to_string(r.operands) + ") \\\n";
  inc += "\n";
  std::FILE *out = std::fopen(output.c_str(), "w");
  if (!out)
    return 1;
  bool written = std::fwrite(inc.data(), 1, inc.size(), out) == inc.size();
  std::fclose(out);
  return written ? 0 : 1;
}
