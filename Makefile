# Everything a fresh machine needs: `make demo` and `make test` install what is
# missing (scripts/setup.sh), configure, build and run.
BUILD_DIR ?= build
LLVM_PREFIX ?= /usr/lib/llvm-22
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)

.PHONY: all setup configure build demo test check-xpu bench docs format clean

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
	rm -rf $(BUILD_DIR)
