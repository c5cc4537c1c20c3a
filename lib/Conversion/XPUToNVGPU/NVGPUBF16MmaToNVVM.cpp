//===- NVGPUBF16MmaToNVVM.cpp - bf16 mma.sync to NVVM ---------------------===//
//
// Upstream's convert-nvgpu-to-nvvm (LLVM 22.1.8) does not lower
// nvgpu.mma.sync on bf16 operands: each becomes nvvm.mma.sync on the 32-bit
// registers of its fragments.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Conversion/XPUToNVGPU/XPUToNVGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUNVGPUBF16MMATONVVMPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
struct BF16MmaSyncToNVVM final : OpRewritePattern<nvgpu::MmaSyncOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nvgpu::MmaSyncOp op,
                                PatternRewriter &rewriter) const override {
    VectorType aType = op.getMatrixA().getType();
    if (!aType.getElementType().isBF16())
      return rewriter.notifyMatchFailure(op, "not bf16");
    VectorType cType = op.getMatrixC().getType();
    if (!cType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "bf16 mma accumulates in f32");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    // Each row of a bf16 fragment is one 32-bit register (1-D bitcasts:
    // n-D ones do not lower to NVVM directly).
    auto registers = [&](Value v) {
      auto type = cast<VectorType>(v.getType());
      auto regType = VectorType::get({1}, i32);
      SmallVector<Value> regs;
      for (int64_t r = 0; r < type.getDimSize(0); ++r) {
        Value row =
            vector::ExtractOp::create(rewriter, loc, v, ArrayRef<int64_t>{r});
        Value reg = vector::BitCastOp::create(rewriter, loc, regType, row);
        regs.push_back(vector::ExtractOp::create(rewriter, loc, reg,
                                                 ArrayRef<int64_t>{0}));
      }
      return regs;
    };
    SmallVector<Value> a = registers(op.getMatrixA());
    SmallVector<Value> b = registers(op.getMatrixB());
    SmallVector<Value> c;
    for (int64_t r = 0; r < cType.getDimSize(0); ++r)
      for (int64_t e = 0; e < cType.getDimSize(1); ++e)
        c.push_back(vector::ExtractOp::create(rewriter, loc, op.getMatrixC(),
                                              ArrayRef<int64_t>{r, e}));
    std::array<int64_t, 3> shape = op.getMmaShapeAsArray();
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(),
        SmallVector<Type>(c.size(), rewriter.getF32Type()));
    Value mma = NVVM::MmaOp::create(
        rewriter, loc, resultType, a, b, c, shape, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    Value result = ub::PoisonOp::create(rewriter, loc, cType);
    for (int64_t i = 0, e = c.size(); i < e; ++i) {
      Value x = LLVM::ExtractValueOp::create(rewriter, loc, mma, i);
      SmallVector<int64_t> at = {i / cType.getDimSize(1),
                                 i % cType.getDimSize(1)};
      result = vector::InsertOp::create(rewriter, loc, x, result, at);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct NVGPUBF16MmaToNVVMPass final
    : xpu::impl::XPUNVGPUBF16MmaToNVVMPassBase<NVGPUBF16MmaToNVVMPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateXPUNVGPUBF16MmaPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::xpu::populateXPUNVGPUBF16MmaPatterns(RewritePatternSet &patterns) {
  patterns.add<BF16MmaSyncToNVVM>(patterns.getContext());
}
