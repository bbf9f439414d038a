// clift-clc: clang, opt and llvm-spirv as functions of one process.
//
// Each of Clift's OpenCL C builds ran three programs (clang-15, opt-15, llvm-spirv-15), and
// each of them spends most of its time loading and relocating libLLVM and libclang-cpp before
// it compiles a line: a small kernel took ~150 ms, of which well under 20 ms was compiling.
// This file gives the three tools as C functions taking the same command lines Clift passes to
// the programs; `main.rs` loads the libraries once and runs the requests in a forked worker,
// resetting LLVM's cl::opt values before each (clift_reset_options), so a tool that crashes or
// sets options affects that one request only.

#include <clang/Basic/Diagnostic.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticBuffer.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/FrontendTool/Utils.h>

#include <llvm/ADT/SmallVector.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ValueSymbolTable.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>

#include <chrono>
#include <fstream>
#include <unistd.h>
#include <string>
#include <vector>

using namespace llvm;

namespace {

// A pipeline request (clift_pipeline) in progress: clang's front end leaves its module here
// instead of writing bitcode, opt and llvm-spirv take it from here.
struct InMemory {
  LLVMContext *ctx = nullptr;
  std::unique_ptr<Module> module;
};
InMemory *in_memory = nullptr;

// What ExecuteCompilerInvocation does for `-emit-llvm-bc` (its -mllvm options, then the action),
// with EmitLLVMOnlyAction in place of EmitBCAction: the same module, left in memory (clang's
// back end runs no pass with -disable-llvm-passes; the bitcode writer was its only step).
// Returns false when the invocation asks for anything else (then the stock path runs).
bool cc1_in_memory(clang::CompilerInstance &clang, bool &ok) {
  const auto &fe = clang.getFrontendOpts();
  if (!in_memory || fe.ProgramAction != clang::frontend::EmitBC || fe.ShowHelp || fe.ShowVersion ||
      !fe.Plugins.empty() || !fe.AddPluginActions.empty() || !fe.ASTMergeFiles.empty() ||
      fe.FixItSuffix.size() || fe.FixWhatYouCan || fe.ARCMTAction != clang::FrontendOptions::ARCMT_None ||
      fe.ObjCMTAction != clang::FrontendOptions::ObjCMT_None)
    return false;
  if (!fe.LLVMArgs.empty()) {
    std::vector<const char *> args = {"clang (LLVM option parsing)"};
    for (const auto &a : fe.LLVMArgs)
      args.push_back(a.c_str());
    args.push_back(nullptr);
    cl::ParseCommandLineOptions(args.size() - 1, args.data());
  }
  if (clang.getDiagnostics().hasErrorOccurred()) {
    ok = false;
    return true;
  }
  clang::EmitLLVMOnlyAction act(in_memory->ctx);
  ok = clang.ExecuteAction(act);
  if (ok)
    in_memory->module = act.takeModule();
  ok = ok && in_memory->module;
  return true;
}

// The front end proper (what clang's own cc1_main does): `args` are the cc1 arguments after
// "-cc1", `argv0` the clang executable (it locates the resource directory).
int cc1(ArrayRef<const char *> args, const char *argv0) {
  auto clang = std::make_unique<clang::CompilerInstance>();
  IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
  IntrusiveRefCntPtr<clang::DiagnosticOptions> opts = new clang::DiagnosticOptions();
  auto *buffer = new clang::TextDiagnosticBuffer;
  clang::DiagnosticsEngine diags(ids, &*opts, buffer);
  bool ok = clang::CompilerInvocation::CreateFromArgs(clang->getInvocation(), args, diags, argv0);
  clang->createDiagnostics();
  if (!clang->hasDiagnostics())
    return 1;
  buffer->FlushDiagnostics(clang->getDiagnostics());
  if (!ok)
    return 1;
  if (!cc1_in_memory(*clang, ok))
    ok = clang::ExecuteCompilerInvocation(clang.get());
  return ok ? 0 : 1;
}

int cc1_from_driver(SmallVectorImpl<const char *> &argv) {
  // argv: the executable, "-cc1", the cc1 arguments.
  ArrayRef<const char *> rest(argv);
  rest = rest.drop_front(1);
  if (!rest.empty() && StringRef(rest.front()) == "-cc1")
    rest = rest.drop_front(1);
  return cc1(rest, argv[0]);
}

// ValueSymbolTable's counter for unique names, a private member: reached through a pointer to
// member named in an explicit instantiation (where access checking does not apply).
template <typename Tag, typename Tag::type Member> struct Expose {
  friend typename Tag::type member(Tag) { return Member; }
};
struct LastUnique {
  using type = uint32_t ValueSymbolTable::*;
  friend type member(LastUnique);
};
template struct Expose<LastUnique, &ValueSymbolTable::LastUnique>;

// A module handed from one step to the next in memory, made to look as the next step's reading
// of the bitcode file would:
// - named after the file;
// - without the constant expressions that nothing uses any more (the bitcode writer leaves them
//   out, but in memory they stay on their operands' use lists, where a pass or the translator
//   walking a global's users would see them);
// - with the symbol tables' counters for unique names back at 0, where a freshly read module
//   has them: a name a pass gives that is taken gets the counter's next value as its suffix
//   (`cmp3` taken: `cmp31`), and clang's own clashes advanced the counters, so the names, which
//   the SPIR-V keeps (OpName), would differ.
void as_if_read(Module &m, const std::string &file) {
  m.setModuleIdentifier(file);
  for (GlobalValue &g : m.global_values())
    g.removeDeadConstantUsers();
  m.getValueSymbolTable().*member(LastUnique{}) = 0;
  for (Function &f : m)
    if (ValueSymbolTable *table = f.getValueSymbolTable())
      table->*member(LastUnique{}) = 0;
}

} // namespace

extern "C" {

// Between two requests served by one worker process: every LLVM command-line option back to
// its default and not seen (clang's cc1 parses its `-mllvm` options and opt its LLVM options
// on every run), so a request sees the options a fresh process would.
void clift_reset_options(void) { cl::ResetAllOptionOccurrences(); }

// After a request: what the tool buffered in LLVM's streams reaches the output file.
void clift_flush_streams(void) {
  outs().flush();
  errs().flush();
}

// The clang driver with its compile step in this process. argv[0] is the path of the clang
// executable the command line was meant for.
int clift_clang(int argc, const char **argv) {
  std::string exe = argv[0];
  IntrusiveRefCntPtr<clang::DiagnosticOptions> opts = new clang::DiagnosticOptions();
  auto *printer = new clang::TextDiagnosticPrinter(errs(), &*opts);
  IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
  clang::DiagnosticsEngine diags(ids, &*opts, printer);
  clang::driver::Driver driver(exe, sys::getDefaultTargetTriple(), diags, "clang LLVM compiler");
  driver.setTitle("clang LLVM compiler");
  driver.CC1Main = &cc1_from_driver;
  SmallVector<const char *, 64> args(argv, argv + argc);
  std::unique_ptr<clang::driver::Compilation> c(driver.BuildCompilation(args));
  if (!c || c->containsError())
    return 1;
  SmallVector<std::pair<int, const clang::driver::Command *>, 4> failing;
  int res = driver.ExecuteCompilation(*c, failing);
  for (const auto &f : failing)
    if (f.first && !res)
      res = f.first;
  errs().flush();
  return res < 0 ? 1 : res;
}

// opt with the arguments Clift passes: `--data-layout=L` (empty: the module's own),
// `-passes=P`, INPUT, `-o` OUTPUT, and LLVM options (`-indvars-widen-indvars=false`).
int clift_opt(int argc, const char **argv) {
  std::string layout, passes, input, output;
  bool set_layout = false;
  std::vector<const char *> llvm_args = {argv[0]};
  for (int i = 1; i < argc; i++) {
    StringRef a(argv[i]);
    if (a.consume_front("--data-layout=")) {
      layout = a.str();
      set_layout = !layout.empty();
    } else if (a.consume_front("-passes=")) {
      passes = a.str();
    } else if (a == "-o" && i + 1 < argc) {
      output = argv[++i];
    } else if (a.startswith("-")) {
      llvm_args.push_back(argv[i]);
    } else {
      input = a.str();
    }
  }
  if (!cl::ParseCommandLineOptions(llvm_args.size(), llvm_args.data(), "clift-clc opt", &errs()))
    return 1;
  LLVMContext ctx;
  std::unique_ptr<Module> owned;
  if (in_memory && in_memory->module) {
    owned = std::move(in_memory->module);
    as_if_read(*owned, input);
  } else {
    auto buf = MemoryBuffer::getFile(input);
    if (!buf) {
      errs() << "opt: cannot read " << input << ": " << buf.getError().message() << "\n";
      return 1;
    }
    auto m = parseBitcodeFile((*buf)->getMemBufferRef(), ctx);
    if (!m) {
      errs() << "opt: " << toString(m.takeError()) << "\n";
      return 1;
    }
    owned = std::move(*m);
  }
  Module &mod = *owned;
  if (set_layout)
    mod.setDataLayout(layout);
  if (verifyModule(mod, &errs())) {
    errs() << "opt: " << input << ": error: input module is broken!\n";
    return 1;
  }
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  ModulePassManager mpm;
  if (auto err = pb.parsePassPipeline(mpm, passes)) {
    errs() << "opt: " << toString(std::move(err)) << "\n";
    return 1;
  }
  mpm.addPass(VerifierPass());
  mpm.run(mod, mam);
  if (in_memory) {
    // The next step (llvm-spirv) takes the module as it would have read it from `output`.
    in_memory->module = std::move(owned);
    return 0;
  }
  std::error_code ec;
  raw_fd_ostream out(output, ec, sys::fs::OF_None);
  if (ec) {
    errs() << "opt: cannot write " << output << ": " << ec.message() << "\n";
    return 1;
  }
  // As opt writes it (its -preserve-bc-uselistorder default): the same bytes.
  WriteBitcodeToFile(mod, out, /*ShouldPreserveUseListOrder=*/true);
  out.close();
  return out.has_error() ? 1 : 0;
}

// llvm-spirv with the arguments Clift passes: INPUT, `-o` OUTPUT,
// `--preserve-ocl-kernel-arg-type-metadata-through-string` and `--spirv-ext=+NAME,...` (as
// the llvm-spirv tool: `+` allows an extension, `-` forbids it, `all` allows every one); the
// rest of the translator's options at the llvm-spirv tool's defaults (the highest version).
int clift_llvm_spirv(int argc, const char **argv) {
  std::string input, output;
  bool preserve = false;
  SPIRV::TranslatorOpts::ExtensionsStatusMap exts;
  for (int i = 1; i < argc; i++) {
    StringRef a(argv[i]);
    if (a == "--preserve-ocl-kernel-arg-type-metadata-through-string" ||
        a == "-preserve-ocl-kernel-arg-type-metadata-through-string") {
      preserve = true;
    } else if (a.consume_front("--spirv-ext=") || a.consume_front("-spirv-ext=")) {
      SmallVector<StringRef, 8> items;
      a.split(items, ',', -1, false);
      for (StringRef item : items) {
        if (item == "+all" || item == "all" || item == "-all") {
          bool on = item != "-all";
#define EXT(X) exts[SPIRV::ExtensionID::X] = on;
#include <LLVMSPIRVLib/LLVMSPIRVExtensions.inc>
#undef EXT
          continue;
        }
        bool on = item.startswith("+");
        if (!on && !item.startswith("-")) {
          errs() << "llvm-spirv (clift-clc): extension " << item << " needs a + or - sign\n";
          return 2;
        }
        StringRef name = item.drop_front();
        bool known = false;
#define EXT(X)                                                                                     \
  if (name == #X) {                                                                                \
    exts[SPIRV::ExtensionID::X] = on;                                                              \
    known = true;                                                                                  \
  }
#include <LLVMSPIRVLib/LLVMSPIRVExtensions.inc>
#undef EXT
        if (!known) {
          errs() << "llvm-spirv (clift-clc): unknown extension " << name << "\n";
          return 2;
        }
      }
    } else if (a == "-o" && i + 1 < argc) {
      output = argv[++i];
    } else if (a.startswith("-")) {
      errs() << "llvm-spirv (clift-clc): unsupported option " << a << "\n";
      return 2;
    } else {
      input = a.str();
    }
  }
  LLVMContext ctx;
  std::unique_ptr<Module> owned;
  if (in_memory && in_memory->module) {
    owned = std::move(in_memory->module);
    as_if_read(*owned, input);
  } else {
    auto buf = MemoryBuffer::getFile(input);
    if (!buf) {
      errs() << "llvm-spirv: cannot read " << input << ": " << buf.getError().message() << "\n";
      return 1;
    }
    auto m = getOwningLazyBitcodeModule(std::move(*buf), ctx, /*ShouldLazyLoadMetadata=*/true);
    if (!m) {
      errs() << toString(m.takeError()) << "\n";
      return 1;
    }
    if (auto err = (*m)->materializeAll()) {
      errs() << toString(std::move(err)) << "\n";
      return 1;
    }
    owned = std::move(*m);
  }
  auto *m = &owned;
  SPIRV::TranslatorOpts opts(SPIRV::VersionNumber::MaximumVersion, exts);
  opts.setPreserveOCLKernelArgTypeMetadataThroughString(preserve);
  std::string err;
  std::ofstream out(output, std::ios::binary);
  if (!writeSpirv(m->get(), opts, out, err)) {
    errs() << "Fails to save LLVM as SPIR-V: " << err << '\n';
    return 255;
  }
  out.close();
  return out ? 0 : 1;
}

// clang, opt and llvm-spirv of one build in one request: the command lines are those of the
// three tools (argv[0] first), and each step's module goes to the next in memory, where the
// separate tools write bitcode that the next one reads (clang's program.bc, opt's
// program.opt.bc; neither file is written). LLVM's options are reset before each step, as
// before each request. `micros` receives each step's time. Returns 0 when the SPIR-V file is
// written, the output holding clang's diagnostics only; clang's exit code when clang failed,
// its diagnostics in the output; 256 + the step (1: opt, 2: llvm-spirv) when a later step
// failed, then the caller runs the tools one by one to take its fallback routes.
int clift_pipeline(int nc, const char **clang_argv, int no, const char **opt_argv, int ns,
                   const char **spirv_argv, unsigned *micros) {
  using clock = std::chrono::steady_clock;
  auto micros_since = [](clock::time_point t) {
    return (unsigned)std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - t).count();
  };
  LLVMContext ctx;
  InMemory state;
  state.ctx = &ctx;
  in_memory = &state;
  auto t = clock::now();
  int code = clift_clang(nc, clang_argv);
  if (code != 0)
    code = (code & 0xff) ? (code & 0xff) : 1;
  micros[0] = micros_since(t);
  clift_flush_streams();
  off_t clang_end = lseek(2, 0, SEEK_CUR);
  if (code == 0) {
    cl::ResetAllOptionOccurrences();
    t = clock::now();
    code = clift_opt(no, opt_argv) ? 257 : 0;
    micros[1] = micros_since(t);
  }
  if (code == 0) {
    cl::ResetAllOptionOccurrences();
    t = clock::now();
    code = clift_llvm_spirv(ns, spirv_argv) ? 258 : 0;
    micros[2] = micros_since(t);
  }
  state.module.reset();
  in_memory = nullptr;
  clift_flush_streams();
  if (code == 0 && clang_end >= 0) {
    // What opt and llvm-spirv printed on success is dropped, as the one-by-one route drops it.
    if (ftruncate(1, clang_end) == 0)
      lseek(1, clang_end, SEEK_SET);
  }
  return code;
}

} // extern "C"
