// llvm-tblgen (benchmark world): reads the records of a .td file and writes the C++ tables that
// LLVM's TableGen backends generate at build time, so that many translation units include
// generated headers and a .td edit rebuilds every one of them, as in the real tree.
//
//   def <Name> : Enum<"<Type>", <count>>;                     -gen-enums: an enum and its name table
//   def <Name> : MatcherTable<"<Prefix>", <bytes>, <seed>>;   -gen-dag-isel: <Prefix>MatcherTable, <bytes>
//                                                             entries (X86GenDAGISel.inc is ~5 MB)
//   def <Name> : InstrTable<"<Prefix>", <bytes>, <seed>>;     -gen-instr-info: <Prefix>InstrTable
//
// usage: llvm-tblgen (-gen-enums | -gen-dag-isel | -gen-instr-info) <input.td> -o <output.inc>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Record {
  std::string kind, name;
  std::vector<std::string> args;
};

std::string trim(const std::string &s) {
  std::size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool parse(const std::string &line, Record &r) {
  // def <Name> : <Kind><<arg>, <arg>, ...>;
  std::size_t colon = line.find(':'), open = line.find('<'), close = line.rfind('>');
  if (line.compare(0, 4, "def ") != 0 || colon == std::string::npos || open == std::string::npos ||
      close == std::string::npos || close < open)
    return false;
  r.name = trim(line.substr(4, colon - 4));
  r.kind = trim(line.substr(colon + 1, open - colon - 1));
  std::stringstream args(line.substr(open + 1, close - open - 1));
  std::string arg;
  while (std::getline(args, arg, ',')) {
    arg = trim(arg);
    if (arg.size() >= 2 && arg.front() == '"')
      arg = arg.substr(1, arg.size() - 2);
    r.args.push_back(arg);
  }
  return !r.name.empty();
}

void emitEnum(std::ostream &os, const Record &r) {
  const std::string &type = r.args.at(0);
  unsigned long count = std::stoul(r.args.at(1));
  os << "namespace llvm {\nnamespace gen {\nenum class " << type << " : unsigned {\n";
  for (unsigned long i = 0; i < count; ++i)
    os << "  " << type << "_" << i << " = " << i << ",\n";
  os << "};\ninline constexpr unsigned Num" << type << " = " << count << ";\n";
  os << "inline constexpr const char *" << type << "Names[] = {\n";
  for (unsigned long i = 0; i < count; ++i)
    os << "  \"" << r.name << "." << i << "\",\n";
  os << "};\n} // namespace gen\n} // namespace llvm\n";
}

// A byte table as big as the record asks: compiling it takes memory in proportion, as the real
// matcher and instruction tables do.
void emitTable(std::FILE *out, const Record &r) {
  const std::string &prefix = r.args.at(0);
  unsigned long bytes = std::stoul(r.args.at(1));
  std::uint32_t state = static_cast<std::uint32_t>(std::stoul(r.args.at(2))) * 2654435761u + 1u;
  std::fprintf(out, "static const unsigned char %s%s[] = {\n", prefix.c_str(), r.kind.c_str());
  for (unsigned long i = 0; i < bytes; ++i) {
    state = state * 1664525u + 1013904223u;
    std::fprintf(out, (i % 32 == 31) ? "%u,\n" : "%u,", static_cast<unsigned>(state >> 24));
  }
  std::fprintf(out, "\n};\n");
}

} // namespace

int main(int argc, char **argv) {
  std::string backend, input, output;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" && i + 1 < argc)
      output = argv[++i];
    else if (a == "-gen-enums" || a == "-gen-dag-isel" || a == "-gen-instr-info")
      backend = a;
    else
      input = a;
  }
  if (backend.empty() || input.empty() || output.empty()) {
    std::fprintf(stderr, "usage: llvm-tblgen (-gen-enums | -gen-dag-isel | -gen-instr-info) <input.td> -o <output.inc>\n");
    return 1;
  }
  std::ifstream in(input);
  if (!in) {
    std::fprintf(stderr, "Could not open input file '%s'\n", input.c_str());
    return 1;
  }
  std::vector<Record> records;
  std::string line;
  unsigned lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    line = trim(line);
    if (line.empty() || line.compare(0, 2, "//") == 0)
      continue;
    Record r;
    if (!parse(line, r)) {
      std::fprintf(stderr, "%s:%u: error: expected 'def Name : Kind<args>;'\n", input.c_str(), lineNo);
      return 1;
    }
    records.push_back(r);
  }
  std::string tmp = output + ".tmp";
  std::FILE *out = std::fopen(tmp.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "cannot write '%s'\n", tmp.c_str());
    return 1;
  }
  std::fprintf(out, "/*===- TableGen'erated file -------------------------------------*- C++ -*-===*/\n\n");
  for (const Record &r : records) {
    if (backend == "-gen-enums" && r.kind == "Enum") {
      std::ostringstream os;
      emitEnum(os, r);
      std::fputs(os.str().c_str(), out);
    } else if ((backend == "-gen-dag-isel" && r.kind == "MatcherTable") ||
               (backend == "-gen-instr-info" && r.kind == "InstrTable")) {
      emitTable(out, r);
    }
  }
  bool ok = std::fclose(out) == 0;
  return ok && std::rename(tmp.c_str(), output.c_str()) == 0 ? 0 : 1;
}
