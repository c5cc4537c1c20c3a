# Everything a fresh machine needs: `make demo` and `make test` install what is
# missing (scripts/setup.sh), configure, build and run.
BUILD_DIR ?= build
LLVM_PREFIX ?= /usr/lib/llvm-22
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
# make test-robustness (docs/Testing.md): the lit suite built with ASan +
# UBSan (GCC), and the libFuzzer harness (clang) for FUZZ_SECONDS per target.
ASAN_BUILD_DIR ?= build-asan
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 25

.PHONY: all setup configure build demo test check-xpu bench docs format clean \
	test-robustness test-sanitizers fuzz

all: build

setup:
	bash scripts/setup.sh

$(BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit

configure: setup $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	bash scripts/demo.sh $(BUILD_DIR)

test: build
	cmake --build $(BUILD_DIR) --target check-xpu

# The whole lit suite with xpu's code instrumented by ASan + UBSan (every
# report fatal), in its own build directory: -O1 with line tables keeps the
# build short and the reports readable.
$(ASAN_BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(ASAN_BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
	  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
	  "-DXPU_SANITIZERS=address;undefined" \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit

test-sanitizers: setup $(ASAN_BUILD_DIR)/build.ninja
	cmake --build $(ASAN_BUILD_DIR) --target check-xpu -j $(JOBS)

# The coverage-guided fuzzer: tools/xpu-fuzz built with clang (libFuzzer,
# ASan, UBSan), run on every pipeline from the test corpus.
$(FUZZ_BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(FUZZ_BUILD_DIR) -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=$(LLVM_PREFIX)/bin/clang \
	  -DCMAKE_CXX_COMPILER=$(LLVM_PREFIX)/bin/clang++ \
	  -DXPU_ENABLE_FUZZER=ON "-DXPU_SANITIZERS=address;undefined" \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit

fuzz: setup $(FUZZ_BUILD_DIR)/build.ninja
	cmake --build $(FUZZ_BUILD_DIR) --target xpu-fuzz -j $(JOBS)
	bash scripts/fuzz.sh $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS)

# The second CI command (.ci/run): sanitized lit suite, then the fuzzer.
test-robustness: test-sanitizers fuzz

bench: build
	bash scripts/bench-cpu.sh $(BUILD_DIR)

# Dialect and pass references generated from ODS (add_mlir_doc).
docs: configure
	cmake --build $(BUILD_DIR) --target mlir-doc
	mkdir -p docs/generated
	cp $(BUILD_DIR)/docs/*.md $(BUILD_DIR)/docs/Dialects/*.md docs/generated/

format:
	find include lib tools runtime test -name '*.cpp' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR) $(FUZZ_BUILD_DIR)
