//===- xpu-fuzz.cpp - libFuzzer harness: parse, verify, run a pipeline ----===//
//
// A coverage-guided fuzz target for xpu-opt's job: each input is parsed as
// MLIR with everything xpu-opt registers, verified, and then either printed
// and parsed again (no pipeline) or run through one pipeline:
//
//   xpu-fuzz [--xpu-pipeline=xpu-cpu-pipeline] [libFuzzer flags] CORPUS...
//
// `--xpu-pipeline` takes a registered pipeline or pass name (run on the
// module) or a textual pipeline (`builtin.module(func.func(xpu-raise))`).
// libFuzzer ignores flags that start with `--`.
//
// Besides crashes, sanitizer reports and fatal errors (libFuzzer reports a
// target that exits), the harness fails (aborts) on what xpu-opt's users
// must never see: an error without a source location from a pipeline, a
// pipeline that fails without any error, and a verified module whose
// printed form does not parse. `--xpu-allow-unlocated` turns the first two
// off for triage. Inputs that trigger a known upstream parser crash
// (docs/KnownIssues.md) are skipped.
//
//===----------------------------------------------------------------------===//

#include "xpu/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {
struct Harness {
  DialectRegistry registry;
  /// Textual pipeline anchored on builtin.module; empty: round-trip only.
  std::string pipeline;
  bool allowUnlocated = false;
};

Harness &harness() {
  static Harness h;
  return h;
}

[[noreturn]] void fail(const std::string &why, const std::string &log) {
  llvm::errs() << "xpu-fuzz: " << why << "\n" << log;
  llvm::errs().flush();
  std::abort();
}

/// Drops what MLIR's lexer skips between tokens from the front of `text`:
/// spaces, tabs, line ends, NUL bytes (the lexer treats one before the end
/// of the buffer as whitespace) and `//` comments up to the line end.
StringRef dropTrivia(StringRef text) {
  while (!text.empty()) {
    char c = text.front();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0') {
      text = text.drop_front();
    } else if (text.starts_with("//")) {
      text = text.substr(text.find_first_of("\n\r"));
    } else {
      break;
    }
  }
  return text;
}

/// True if `text` starts, after trivia, with a list of decimal integers
/// that DenseI64ArrayAttr parses: `[` (`-`? digits (`,` `-`? digits)*)? `]`.
/// Anything else (hex, too many digits, a stray character) counts as
/// malformed: skipping a parseable input only costs coverage.
bool startsWithI64List(StringRef text) {
  text = dropTrivia(text);
  if (!text.consume_front("["))
    return false;
  text = dropTrivia(text);
  if (text.consume_front("]"))
    return true;
  while (true) {
    if (text.consume_front("-"))
      text = dropTrivia(text);
    size_t digits = text.find_first_not_of("0123456789");
    if (digits == 0 || digits == StringRef::npos || digits > 18)
      return false;
    text = dropTrivia(text.drop_front(digits));
    if (text.consume_front("]"))
      return true;
    if (!text.consume_front(","))
      return false;
    text = dropTrivia(text);
  }
}

/// True if `text` starts with a list of string literals, or with something
/// that is neither a list nor an attribute alias (a parser rejects that
/// with an error).
bool isStringListOrNoList(StringRef text) {
  text = dropTrivia(text);
  if (text.starts_with("#"))
    return false; // an alias may stand for any list
  if (!text.consume_front("["))
    return true;
  text = dropTrivia(text);
  if (text.consume_front("]"))
    return true;
  while (true) {
    if (!text.consume_front("\""))
      return false;
    size_t end = 0;
    for (; end < text.size() && text[end] != '"'; ++end) {
      char c = text[end];
      if (c == '\\')
        ++end;
      else if (c == '\n' || c == '\v' || c == '\f' || c == '\0')
        return false;
    }
    if (end >= text.size())
      return false;
    text = dropTrivia(text.drop_front(end + 1));
    if (text.consume_front("]"))
      return true;
    if (!text.consume_front(","))
      return false;
    text = dropTrivia(text);
  }
}

/// True if `input` may hit one of the upstream crashes of
/// docs/KnownIssues.md: an unterminated string in the file metadata, a
/// resource blob aligned to 0 bytes, an `iterator_types` list that is not
/// all strings,
/// `permutation =` or `dimensions =` that is not followed by a well-formed
/// list of integers, or a masked vector.contract without its maps. Tokens
/// are separated as MLIR's lexer separates them (dropTrivia); the inputs in
/// tools/xpu-fuzz/known-upstream/ are the variants that must be skipped.
bool hitsKnownUpstreamCrash(StringRef input) {
  // docs/KnownIssues.md: vector.mask verifies the mask type of the op it
  // masks before that op is verified, so a vector.contract inside one
  // without its maps, or with maps of the wrong shape, crashes the
  // verifier.
  if (input.contains("vector.mask") && input.contains("vector.contract"))
    return true;
  // docs/KnownIssues.md: a string left open at the end of the file inside
  // the `{-# ... #-}` metadata (dialect resources) makes the lexer read past
  // the end of the buffer. Strings are followed as the lexer does: a
  // backslash escapes the next character (`\"` does not close one); a line
  // feed, vertical tab or form feed ends one with an error, and lexing goes
  // on after it.
  // The scan starts at the top of the file: a `{-#` may sit in a string.
  if (input.contains("{-#")) {
    bool open = false;
    for (size_t i = 0, e = input.size(); i < e; ++i) {
      char c = input[i];
      if (!open)
        open = c == '"';
      else if (c == '\\')
        ++i;
      else if (c == '"' || c == '\n' || c == '\v' || c == '\f')
        open = false;
    }
    if (open)
      return true;
    // docs/KnownIssues.md: a resource blob whose alignment (its first 4
    // bytes) is 0 passes the parser's power-of-two check and aborts the
    // allocation of its buffer.
    StringRef metadata = input.drop_front(input.find("{-#"));
    if (metadata.contains("\"0x00000000") || metadata.contains("\"0X00000000"))
      return true;
  }
  // docs/KnownIssues.md: linalg.transpose, linalg.reduce and
  // linalg.broadcast store a null attribute when the list after
  // `permutation =` or `dimensions =` does not parse.
  for (StringRef key : {StringRef("permutation"), StringRef("dimensions")}) {
    for (size_t pos = input.find(key); pos != StringRef::npos;
         pos = input.find(key, pos + 1)) {
      StringRef rest = input.drop_front(pos + key.size());
      rest.consume_front("\""); // a quoted attribute name
      rest = dropTrivia(rest);
      if (rest.consume_front("=") && !startsWithI64List(rest))
        return true;
    }
  }
  // docs/KnownIssues.md: the parsers of linalg.generic and vector.contract
  // read every element of `iterator_types` as a string, unchecked.
  StringRef key = "iterator_types";
  for (size_t pos = input.find(key); pos != StringRef::npos;
       pos = input.find(key, pos + 1)) {
    StringRef rest = input.drop_front(pos + key.size());
    rest.consume_front("\"");
    rest = dropTrivia(rest);
    if (rest.consume_front("=") && !isStringListOrNoList(rest))
      return true;
  }
  return false;
}

/// Runs one input; aborts on a property violation.
void runOne(StringRef input) {
  Harness &h = harness();
  if (hitsKnownUpstreamCrash(input))
    return;
  MLIRContext ctx(h.registry, MLIRContext::Threading::DISABLED);
  std::string log;
  llvm::raw_string_ostream os(log);
  bool sawError = false, unlocated = false;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    os << diag.getLocation() << ": " << diag << "\n";
    if (diag.getSeverity() == DiagnosticSeverity::Error) {
      sawError = true;
      if (isa<UnknownLoc>(diag.getLocation()))
        unlocated = true;
    }
    return success();
  });

  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(input, "fuzz-input"), llvm::SMLoc());
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module || failed(verify(*module)))
    return;

  if (h.pipeline.empty()) {
    // What was verified prints and parses again.
    std::string printed;
    llvm::raw_string_ostream printedOs(printed);
    module->print(printedOs);
    OwningOpRef<ModuleOp> reparsed =
        parseSourceString<ModuleOp>(printed, config);
    if (!reparsed)
      fail("a verified module does not parse once printed", log + printed);
    return;
  }

  // Only what the pipeline reports counts from here: an unlocated error
  // while parsing comes from upstream parsers (docs/KnownIssues.md).
  sawError = unlocated = false;
  PassManager pm(&ctx, ModuleOp::getOperationName(),
                 PassManager::Nesting::Implicit);
  std::string pipelineErrors;
  llvm::raw_string_ostream pipelineOs(pipelineErrors);
  if (failed(parsePassPipeline(h.pipeline, pm, pipelineOs)))
    fail("the pipeline does not parse: " + pipelineErrors, log);
  bool failedRun = failed(pm.run(*module));
  if (h.allowUnlocated)
    return;
  if (unlocated)
    fail("an error without a source location", log);
  if (failedRun && !sawError)
    fail("the pipeline failed without an error", log);
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  Harness &h = harness();
  xpu::registerAllXPU(h.registry);
  registerAllPasses();
  registerAllGPUToLLVMIRTranslations(h.registry);
  for (int i = 1; i < *argc; ++i) {
    StringRef arg = (*argv)[i];
    if (arg.consume_front("--xpu-pipeline=")) {
      h.pipeline =
          arg.contains('(') ? arg.str() : ("builtin.module(" + arg + ")").str();
    } else if (arg == "--xpu-allow-unlocated") {
      h.allowUnlocated = true;
    } else if (arg.starts_with("--")) {
      llvm::errs() << "xpu-fuzz: unknown option '" << arg << "'\n";
      std::exit(2);
    }
  }
  if (!h.pipeline.empty()) {
    // A pipeline that does not parse is a usage error, not a finding.
    MLIRContext ctx(h.registry);
    PassManager pm(&ctx, ModuleOp::getOperationName(),
                   PassManager::Nesting::Implicit);
    if (failed(parsePassPipeline(h.pipeline, pm, llvm::errs()))) {
      llvm::errs() << "xpu-fuzz: invalid --xpu-pipeline '" << h.pipeline
                   << "'\n";
      std::exit(2);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  runOne(StringRef(reinterpret_cast<const char *>(data), size));
  return 0;
}
