// triton-opt: Triton's mlir-opt. The real one is MlirOptMain with Triton's passes registered; this
// miniature reads the same command line (pass flags such as -tritongpu-coalesce or
// --tritongpu-assign-latencies=num-stages=4, -pass-pipeline=, -split-input-file, -o, -debug,
// -debug-only=, --run-reproducer, -mlir-print-ir-before/after[-all], -mlir-print-debuginfo) and runs
// the passes of triton/Tools/TextIR.h on a module given as text.
#include "./RegisterTritonDialects.h"
#include "triton/Tools/Debug.h"
#include "triton/Tools/TextIR.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace mlir::triton;

namespace {

struct PassSpec {
  std::string argument;
  std::string options;
};

struct Options {
  std::string input = "-";
  std::string output = "-";
  bool splitInputFile = false, runReproducer = false, printDebugInfo = false;
  bool printBeforeAll = false, printAfterAll = false;
  std::set<std::string> printBefore, printAfter;
  std::vector<PassSpec> passes;
  std::string pipeline;
};

const char *const kFlags[] = {"o", "split-input-file", "run-reproducer", "mlir-print-debuginfo",
                              "mlir-print-ir-before-all", "mlir-print-ir-after-all", "mlir-print-ir-before",
                              "mlir-print-ir-after", "debug", "debug-only", "pass-pipeline",
                              "allow-unregistered-dialect", "mlir-disable-threading", "verify-each", "help",
                              "version"};

std::vector<std::string> splitList(const std::string &text, char sep) {
  std::vector<std::string> parts;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find(sep, start);
    if (end == std::string::npos)
      end = text.size();
    if (end > start)
      parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

void readAll(std::FILE *f, std::string &out) {
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
    out.append(buf, n);
}

std::size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

int unknownArgument(const std::string &arg, const std::string &name) {
  llvm::errs() << "triton-opt: Unknown command line argument '" << arg << "'.  Try: 'triton-opt --help'\n";
  std::string best;
  std::size_t bestDistance = 4;
  std::vector<std::string> known(std::begin(kFlags), std::end(kFlags));
  for (const auto &pass : text::registeredPasses())
    known.push_back(pass->getArgument());
  for (const std::string &candidate : known) {
    std::size_t d = editDistance(name, candidate);
    if (d < bestDistance)
      bestDistance = d, best = candidate;
  }
  if (!best.empty())
    llvm::errs() << "triton-opt: Did you mean '--" << best << "'?\n";
  return 1;
}

void printHelp() {
  llvm::outs() << "OVERVIEW: Triton (GPU) optimizer driver\n\nUSAGE: triton-opt [options] <input file>\n\n"
               << "OPTIONS:\n\nGeneral options:\n\n"
               << "  Compiler passes to run\n";
  for (const auto &pass : text::registeredPasses())
    llvm::outs() << "    --" << pass->getArgument() << " - " << pass->getDescription() << "\n";
  llvm::outs() << "  --debug-only=<debug string>  - Enable a specific type of debug output (comma separated list)\n"
               << "  -o <filename>                - Output filename\n"
               << "  --pass-pipeline=<string>     - Textual description of the pass pipeline to run\n"
               << "  --run-reproducer             - Run the pipeline stored in the reproducer\n"
               << "  --split-input-file           - Split the input file into pieces and process each chunk\n";
}

/// Parses the command line into `options`; returns -1 to go on, else the exit status.
int parseCommandLine(int argc, char **argv, Options &options) {
  bool positional = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-" || arg[0] != '-') {
      if (positional) {
        llvm::errs() << "triton-opt: Too many positional arguments specified!\n";
        return 1;
      }
      options.input = arg;
      positional = true;
      continue;
    }
    std::string flag = arg.substr(arg.compare(0, 2, "--") == 0 ? 2 : 1);
    std::size_t eq = flag.find('=');
    std::string name = flag.substr(0, eq), value = eq == std::string::npos ? "" : flag.substr(eq + 1);
    if (name == "help" || name == "h") {
      printHelp();
      return 0;
    }
    if (name == "version") {
      llvm::cl::PrintVersionMessage("triton-opt");
      return 0;
    }
    if (name == "o") {
      if (eq == std::string::npos && i + 1 >= argc) {
        llvm::errs() << "triton-opt: for the -o option: requires a value!\n";
        return 1;
      }
      options.output = eq == std::string::npos ? argv[++i] : value;
    } else if (name == "split-input-file") {
      options.splitInputFile = true;
    } else if (name == "run-reproducer") {
      options.runReproducer = true;
    } else if (name == "mlir-print-debuginfo") {
      options.printDebugInfo = true;
    } else if (name == "mlir-print-ir-before-all") {
      options.printBeforeAll = true;
    } else if (name == "mlir-print-ir-after-all") {
      options.printAfterAll = true;
    } else if (name == "mlir-print-ir-before" || name == "mlir-print-ir-after") {
      for (const std::string &p : splitList(value, ','))
        (name == "mlir-print-ir-before" ? options.printBefore : options.printAfter).insert(p);
    } else if (name == "debug") {
      llvm::DebugFlag = true;
    } else if (name == "debug-only") {
      llvm::DebugFlag = true;
      llvm::setCurrentDebugTypes(splitList(value, ','));
    } else if (name == "pass-pipeline" || name == "p") {
      options.pipeline = value;
    } else if (name == "allow-unregistered-dialect" || name == "mlir-disable-threading" || name == "verify-each") {
      // Accepted as the real driver does; the miniature has nothing to change for them.
    } else if (text::createPass(name)) {
      options.passes.push_back({name, value});
    } else {
      return unknownArgument(arg, name);
    }
  }
  if (!options.pipeline.empty() && !options.passes.empty()) {
    llvm::errs() << "triton-opt: '--pass-pipeline' option can't be used with individual pass options\n";
    return 1;
  }
  return -1;
}

/// The passes of a textual pipeline such as `builtin.module(any(a,b{x=1}),c)`; false on an unknown pass.
bool parsePipeline(const std::string &pipeline, std::vector<PassSpec> &passes, std::string &error) {
  std::string name;
  std::size_t nameStart = 0;
  auto flush = [&]() -> bool {
    std::size_t b = name.find_first_not_of(' '), e = name.find_last_not_of(' ');
    std::string word = b == std::string::npos ? "" : name.substr(b, e - b + 1);
    name.clear();
    if (word.empty())
      return true;
    std::string options;
    std::size_t brace = word.find('{');
    if (brace != std::string::npos) {
      options = word.substr(brace + 1, word.size() - brace - 2);
      word = word.substr(0, brace);
    }
    if (!text::createPass(word)) {
      error = "MLIR Textual PassPipeline Parser:1:" + std::to_string(nameStart + 1) + ": error: '" + word +
              "' does not refer to a registered pass or pass pipeline";
      return false;
    }
    passes.push_back({word, options});
    return true;
  };
  for (std::size_t i = 0; i < pipeline.size(); ++i) {
    char c = pipeline[i];
    if (c == '{') {
      std::size_t depth = 0, j = i;
      for (; j < pipeline.size(); ++j) {
        depth += pipeline[j] == '{' ? 1 : 0;
        if (pipeline[j] == '}' && --depth == 0)
          break;
      }
      name += pipeline.substr(i, j - i + 1);
      i = j;
    } else if (c == '(') {
      name.clear(); // an operation to nest under (builtin.module, any, tt.func): the miniature runs on the module
    } else if (c == ',' || c == ')') {
      if (!flush())
        return false;
    } else {
      if (name.empty())
        nameStart = i;
      name += c;
    }
  }
  return flush();
}

/// The `pipeline: "..."` of an mlir_reproducer resource.
std::string reproducerPipeline(const std::string &resources) {
  std::size_t key = resources.find("pipeline:");
  if (resources.find("mlir_reproducer") == std::string::npos || key == std::string::npos)
    return "";
  std::size_t open = resources.find('"', key);
  std::size_t close = open == std::string::npos ? open : resources.find('"', open + 1);
  return close == std::string::npos ? "" : resources.substr(open + 1, close - open - 1);
}

void printDump(const char *when, const text::Pass &pass, const text::Module &module, bool debugInfo) {
  llvm::errs() << "// -----// IR Dump " << when << " " << pass.getName() << " (" << pass.getArgument()
               << ") ('builtin.module' operation) //----- //\n"
               << text::printModule(module, debugInfo) << "\n";
}

/// Runs the passes on one module; false after printing the error.
bool process(const std::string &chunk, unsigned firstLine, const Options &options, std::string &result) {
  text::Module module;
  std::string error;
  if (!text::parseModule(chunk, options.input == "-" ? "<stdin>" : options.input, firstLine, module, error)) {
    llvm::errs() << error << "\n";
    return false;
  }
  std::vector<PassSpec> passes = options.passes;
  std::string pipeline = options.runReproducer ? reproducerPipeline(module.resources) : options.pipeline;
  if (!pipeline.empty() && !parsePipeline(pipeline, passes, error)) {
    llvm::errs() << error << "\n";
    return false;
  }
  for (const PassSpec &spec : passes) {
    std::unique_ptr<text::Pass> pass = text::createPass(spec.argument);
    for (const std::string &option : splitList(spec.options, ' ')) {
      std::size_t eq = option.find('=');
      if (!pass->setOption(option.substr(0, eq), eq == std::string::npos ? "true" : option.substr(eq + 1), error)) {
        llvm::errs() << "triton-opt: for the --" << spec.argument << " option: " << error << "\n";
        return false;
      }
    }
    if (options.printBeforeAll || options.printBefore.count(spec.argument))
      printDump("Before", *pass, module, options.printDebugInfo);
    if (!pass->runOnModule(module, error)) {
      llvm::errs() << module.bufferName << ":" << firstLine << ":1: error: " << error << "\n";
      return false;
    }
    if (options.printAfterAll || options.printAfter.count(spec.argument))
      printDump("After", *pass, module, options.printDebugInfo);
  }
  result += text::printModule(module, options.printDebugInfo);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  registerTritonDialects();
  Options options;
  int status = parseCommandLine(argc, argv, options);
  if (status >= 0)
    return status;
  std::string input, output;
  if (options.input == "-") {
    readAll(stdin, input);
  } else {
    std::FILE *in = std::fopen(options.input.c_str(), "rb");
    if (!in) {
      llvm::errs() << "triton-opt: could not open input file '" << options.input << "'\n";
      return 1;
    }
    readAll(in, input);
    std::fclose(in);
  }
  std::vector<std::pair<std::string, unsigned>> chunks{{input, 1}};
  if (options.splitInputFile) {
    chunks.clear();
    std::string chunk;
    unsigned line = 1, start = 1;
    for (std::size_t pos = 0; pos < input.size(); ++line) {
      std::size_t nl = input.find('\n', pos);
      std::string text = input.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl == std::string::npos ? input.size() : nl + 1;
      if (text.rfind("// -----", 0) == 0) {
        chunks.push_back({chunk, start});
        chunk.clear();
        start = line + 1;
      } else {
        chunk += text + "\n";
      }
    }
    chunks.push_back({chunk, start});
  }
  bool ok = true;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (i > 0)
      output += "// -----\n";
    ok = process(chunks[i].first, chunks[i].second, options, output) && ok;
  }
  if (!ok)
    return 1;
  if (options.output == "-") {
    llvm::outs() << output;
    return 0;
  }
  std::FILE *out = std::fopen(options.output.c_str(), "w");
  if (!out || std::fwrite(output.data(), 1, output.size(), out) != output.size()) {
    if (out)
      std::fclose(out);
    llvm::errs() << "triton-opt: could not open output file '" << options.output << "'\n";
    return 1;
  }
  std::fclose(out);
  return 0;
}
