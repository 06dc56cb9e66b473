# make              build everything into build/ (the CLI is build/coalesce), tuned for this
#                   machine (-DCOALESCE_NATIVE=ON: how the benchmark figures were measured)
# make run          set up, build, and run the quick benchmark of every workload on every device
# make test         set up, build with AddressSanitizer + UBSan and -Werror into build-test/,
#                   run all tests (they install into a temporary prefix and build the examples)
# make install      build a portable Release into build-release/ and install it under PREFIX
#                   (default /usr/local; DESTDIR for staging): make install PREFIX=$HOME/.local
# make setup        install the Debian packages the build needs (as root)
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local

.PHONY: all setup run test bench install clean
all:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCOALESCE_NATIVE=ON
	cmake --build build -j $(JOBS)

setup:
	sh scripts/setup.sh

run: setup all
	./build/coalesce devices
	./build/coalesce bench --quick

test: setup
	cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DCOALESCE_SANITIZE=ON -DCOALESCE_WERROR=ON
	cmake --build build-test -j $(JOBS)
	cd build-test && ctest -j $(JOBS) --output-on-failure

bench: all
	./build/coalesce bench

# Portable (no -march=native): what is installed may run on another processor.
install:
	cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DCOALESCE_NATIVE=OFF \
	      -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build build-release -j $(JOBS)
	cmake --install build-release

clean:
	rm -rf build build-test build-release
