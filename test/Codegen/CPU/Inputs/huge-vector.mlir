func.func @huge_vector(%c: memref<1099511627776x16xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1099511627776x16xf32>, vector<1099511627776x16xf32>
  vector.transfer_write %v, %c[%c0, %c0] {in_bounds = [true, true]} : vector<1099511627776x16xf32>, memref<1099511627776x16xf32>
  return
}
