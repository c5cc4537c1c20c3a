// RUN: xpu-opt %s -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(xpu-cpu-pack-operands{register-tile=0,16}))'

// A register tile needs two positive sizes.
// expected-error @+1 {{xpu-cpu-pack-operands: register-tile needs 2 positive sizes [mr, nr]}}
func.func @bad_register_tile() {
  return
}
