# make        build everything into build/ (the CLI is build/coalesce)
# make run    set up, build, and run the quick benchmark of every workload on every device
# make test   set up, build with AddressSanitizer + UBSan into build-test/, run all tests
# make setup  install the Debian packages the build needs (as root)
JOBS ?= $(shell nproc)

.PHONY: all setup run test bench clean
all:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
	cmake --build build -j $(JOBS)

setup:
	sh scripts/setup.sh

run: setup all
	./build/coalesce devices
	./build/coalesce bench --quick

test: setup
	cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DCOALESCE_SANITIZE=ON
	cmake --build build-test -j $(JOBS)
	cd build-test && ctest --output-on-failure

bench: all
	./build/coalesce bench

clean:
	rm -rf build build-test
