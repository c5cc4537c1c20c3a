//===- levelzero-probe.cpp - Is there a Level Zero driver? ----------------===//
//
// Calls zeInit and, only if it succeeds, zeDriverGet (the loader may crash on
// calls after a failed zeInit). Prints the outcome and exits with 0 when at
// least one driver exists, 1 otherwise. lit uses it to set the
// `levelzero-driver` feature.
//
//===----------------------------------------------------------------------===//

#include <level_zero/ze_api.h>

#include <cstdio>

int main() {
  ze_result_t result = zeInit(0);
  if (result != ZE_RESULT_SUCCESS) {
    std::printf("no Level Zero driver (zeInit: 0x%x)\n",
                static_cast<unsigned>(result));
    return 1;
  }
  uint32_t count = 0;
  result = zeDriverGet(&count, nullptr);
  if (result != ZE_RESULT_SUCCESS || count == 0) {
    std::printf("no Level Zero driver (zeDriverGet: 0x%x, %u drivers)\n",
                static_cast<unsigned>(result), count);
    return 1;
  }
  std::printf("%u Level Zero driver(s)\n", count);
  return 0;
}
