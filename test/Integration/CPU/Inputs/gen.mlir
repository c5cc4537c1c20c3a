// Deterministic test inputs, shared by the CPU integration tests (a test
// pipes `cat %s %S/Inputs/gen.mlir` into xpu-run). Element [i0, ..., ir] of
// input `seed` is
//   ((... + 3*i(r-2) + 7*i(r-1) + 13*ir + 5*seed) mod 23 - 11) / 8
// (13 for the innermost dimension, 7 and 3 for the next ones out), a multiple
// of 1/8 in [-1.375, 1.375] that f32 holds exactly. test/lib/refcheck.py
// builds the same values in float64; `pos` variants are |v| + 0.5.

func.func private @value(%idx: index, %seed: i64) -> f32 {
  %c5 = arith.constant 5 : i64
  %c23 = arith.constant 23 : i64
  %c11 = arith.constant 11 : i64
  %eighth = arith.constant 0.125 : f32
  %i = arith.index_cast %idx : index to i64
  %s = arith.muli %seed, %c5 : i64
  %t = arith.addi %i, %s : i64
  %m = arith.remsi %t, %c23 : i64
  %c = arith.subi %m, %c11 : i64
  %f = arith.sitofp %c : i64 to f32
  %v = arith.mulf %f, %eighth : f32
  return %v : f32
}

func.func @gen1(%n: index, %seed: i64) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%e : tensor<?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %c13 = arith.constant 13 : index
    %a = arith.muli %i, %c13 : index
    %v = func.call @value(%a, %seed) : (index, i64) -> f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @gen1pos(%n: index, %seed: i64) -> tensor<?xf32> {
  %t = func.call @gen1(%n, %seed) : (index, i64) -> tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%t : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %half = arith.constant 0.5 : f32
    %a = math.absf %in : f32
    %v = arith.addf %a, %half : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @gen2(%m: index, %n: index, %seed: i64) -> tensor<?x?xf32> {
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c7 = arith.constant 7 : index
    %c13 = arith.constant 13 : index
    %a = arith.muli %i, %c7 : index
    %b = arith.muli %j, %c13 : index
    %s = arith.addi %a, %b : index
    %v = func.call @value(%s, %seed) : (index, i64) -> f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @gen3(%b: index, %m: index, %n: index, %seed: i64) -> tensor<?x?x?xf32> {
  %e = tensor.empty(%b, %m, %n) : tensor<?x?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %c13 = arith.constant 13 : index
    %a = arith.muli %i, %c3 : index
    %bb = arith.muli %j, %c7 : index
    %c = arith.muli %k, %c13 : index
    %s0 = arith.addi %a, %bb : index
    %s = arith.addi %s0, %c : index
    %v = func.call @value(%s, %seed) : (index, i64) -> f32
    linalg.yield %v : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}
