// Driver for linear_bn_relu.mlir (used by scripts/demo.sh): builds the inputs
// with test/Integration/CPU/Inputs/gen.mlir, calls @forward and prints the
// result, which scripts/demo.sh checks against a NumPy float64 reference.

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %s4 = arith.constant 4 : i64
  %s5 = arith.constant 5 : i64
  %s6 = arith.constant 6 : i64
  %s7 = arith.constant 7 : i64
  %xd = call @gen2(%c16, %c64, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c32, %c64, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c32, %s3) : (index, i64) -> tensor<?xf32>
  %gd = call @gen1(%c32, %s4) : (index, i64) -> tensor<?xf32>
  %btd = call @gen1(%c32, %s5) : (index, i64) -> tensor<?xf32>
  %md = call @gen1(%c32, %s6) : (index, i64) -> tensor<?xf32>
  %vd = call @gen1pos(%c32, %s7) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<16x64xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<32x64xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<32xf32>
  %g = tensor.cast %gd : tensor<?xf32> to tensor<32xf32>
  %bt = tensor.cast %btd : tensor<?xf32> to tensor<32xf32>
  %m = tensor.cast %md : tensor<?xf32> to tensor<32xf32>
  %v = tensor.cast %vd : tensor<?xf32> to tensor<32xf32>
  %y = call @forward(%x, %w, %b, %g, %bt, %m, %v)
      : (tensor<16x64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
  %u = tensor.cast %y : tensor<16x32xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
