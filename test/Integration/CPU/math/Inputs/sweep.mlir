// The sweep shared by the math accuracy tests (a test pipes
// `cat %s %S/Inputs/sweep.mlir` into xpu-run). The test defines
//   @sweep_bounds() -> (lo, hi, signed): the magnitudes swept, lo <= hi
//   @forward(tensor<65536xf32>) -> tensor<65536xf32>: the function applied
// and @main builds x: 65536 magnitudes uniformly spaced in bit pattern
// between lo and hi (so every binade gets the same number of points, from
// the smallest inputs to the tails), the second half negated when `signed`
// (else a second sweep of the same range). It prints the bit patterns of x
// and of y = @forward(x) with printMemrefI32 for test/lib/mathcheck.py.

func.func private @printMemrefI32(tensor<*xi32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %lo, %hi, %signed = call @sweep_bounds() : () -> (f32, f32, i1)
  %lob = arith.bitcast %lo : f32 to i32
  %hib = arith.bitcast %hi : f32 to i32
  %lo64 = arith.extsi %lob : i32 to i64
  %hi64 = arith.extsi %hib : i32 to i64
  %span = arith.subi %hi64, %lo64 : i64
  %e = tensor.empty() : tensor<65536xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} outs(%e : tensor<65536xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %i64 = arith.index_cast %i : index to i64
    %half = arith.constant 32768 : i64
    %last = arith.constant 32767 : i64
    %j = arith.remsi %i64, %half : i64
    %num = arith.muli %span, %j : i64
    %off = arith.divsi %num, %last : i64
    %bits64 = arith.addi %lo64, %off : i64
    %bits = arith.trunci %bits64 : i64 to i32
    %v = arith.bitcast %bits : i32 to f32
    %second = arith.cmpi sge, %i64, %half : i64
    %neg = arith.andi %second, %signed : i1
    %nv = arith.negf %v : f32
    %r = arith.select %neg, %nv, %v : f32
    linalg.yield %r : f32
  } -> tensor<65536xf32>
  %y = call @forward(%x) : (tensor<65536xf32>) -> tensor<65536xf32>
  %ei = tensor.empty() : tensor<65536xi32>
  %xb = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}
      ins(%x : tensor<65536xf32>) outs(%ei : tensor<65536xi32>) {
  ^bb0(%in: f32, %out: i32):
    %b = arith.bitcast %in : f32 to i32
    linalg.yield %b : i32
  } -> tensor<65536xi32>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}
      ins(%y : tensor<65536xf32>) outs(%ei : tensor<65536xi32>) {
  ^bb0(%in: f32, %out: i32):
    %b = arith.bitcast %in : f32 to i32
    linalg.yield %b : i32
  } -> tensor<65536xi32>
  %xu = tensor.cast %xb : tensor<65536xi32> to tensor<*xi32>
  %yu = tensor.cast %yb : tensor<65536xi32> to tensor<*xi32>
  call @printMemrefI32(%xu) : (tensor<*xi32>) -> ()
  call @printMemrefI32(%yu) : (tensor<*xi32>) -> ()
  return
}
