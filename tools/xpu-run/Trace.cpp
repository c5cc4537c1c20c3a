//===- Trace.cpp - Chrome/Perfetto trace of an xpu-run run ----------------===//

#include "Trace.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Threading.h"

#include <chrono>
#include <unistd.h>

using namespace mlir;
using namespace mlir::xpu::run;

std::optional<std::string> Trace::open(StringRef path) {
  std::error_code ec;
  auto out =
      std::make_unique<llvm::ToolOutputFile>(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return "cannot write the trace to '" + path.str() + "': " + ec.message();
  out_ = std::move(out);
  return std::nullopt;
}

double Trace::now() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Strings are copied: a json::Value made from a StringRef does not own it,
// and kernel names die with their KernelStats.
void Trace::add(StringRef name, StringRef cat, double startUs, double durUs,
                int64_t tid, llvm::json::Object args) {
  llvm::json::Object event{{"name", name.str()},
                           {"cat", cat.str()},
                           {"ph", "X"},
                           {"ts", startUs},
                           {"dur", std::max(durUs, 0.0)},
                           {"pid", int64_t(::getpid())},
                           {"tid", tid}};
  if (!args.empty())
    event["args"] = std::move(args);
  events_.push_back(std::move(event));
}

void Trace::complete(StringRef name, StringRef cat, double startUs,
                     llvm::json::Object args) {
  if (!enabled())
    return;
  add(name, cat, startUs, now() - startUs, int64_t(llvm::get_threadid()),
      std::move(args));
}

void Trace::kernels(ArrayRef<KernelStats> stats, double startUs,
                    StringRef device) {
  if (!enabled())
    return;
  double t = startUs;
  for (const KernelStats &k : stats) {
    double dur = k.deviceNanoseconds >= 0 ? k.deviceNanoseconds / 1e3 : 0.0;
    add(k.name, "kernel", t, dur, kDeviceTid,
        llvm::json::Object{{"launches", int64_t(k.launches)},
                           {"device", device.str()},
                           {"device_ns", k.deviceNanoseconds}});
    t += dur;
  }
}

std::optional<std::string> Trace::write() {
  if (!enabled())
    return std::nullopt;
  int64_t pid = ::getpid();
  llvm::json::Array all;
  all.push_back(
      llvm::json::Object{{"name", "process_name"},
                         {"ph", "M"},
                         {"pid", pid},
                         {"tid", 0},
                         {"args", llvm::json::Object{{"name", "xpu-run"}}}});
  all.push_back(llvm::json::Object{
      {"name", "thread_name"},
      {"ph", "M"},
      {"pid", pid},
      {"tid", kDeviceTid},
      {"args", llvm::json::Object{{"name", "device kernels"}}}});
  for (llvm::json::Value &e : events_)
    all.push_back(std::move(e));
  events_.clear();
  llvm::json::Object trace{{"traceEvents", std::move(all)},
                           {"displayTimeUnit", "ms"}};
  out_->os() << llvm::json::Value(std::move(trace)) << "\n";
  out_->os().flush();
  if (out_->os().has_error()) {
    std::string message = out_->os().error().message();
    out_->os().clear_error();
    return "cannot write the trace to '" + out_->getFilename().str() +
           "': " + message;
  }
  out_->keep();
  return std::nullopt;
}
