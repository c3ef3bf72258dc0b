#!/usr/bin/env bash
# The CMake package and the toolchain files, used as a user's project uses them.
#
#   package_test.sh native REPO BUILD_DIR SCRATCH GENERATOR CC CXX [--installed]
#       examples/app (copied with its kernels into SCRATCH, so that a kernel's timestamp
#       can change) against the package of the build tree BUILD_DIR (or, --installed, of
#       its `cmake --install` into SCRATCH/prefix); runs it, then touches one .bir and
#       checks that only that kernel is recompiled.
#   package_test.sh cross TOOLCHAIN REPO BLOCKC SCRATCH GENERATOR [-DVAR=VALUE...]
#       cross-builds blockc's runtime and the nine examples with TOOLCHAIN (a file from
#       toolchains/) into SCRATCH/blockc, compiled by the host BLOCKC, and runs its ctest
#       (the examples under QEMU), as docs/k1.md says.
#   package_test.sh cross-app TOOLCHAIN REPO SCRATCH GENERATOR build|installed [-DVAR=VALUE...]
#       examples/app for TOOLCHAIN against the package of SCRATCH/blockc (made by `cross`)
#       or of its `cmake --install` into SCRATCH/prefix, run by its ctest under QEMU.
#   package_test.sh sleef-root TOOLCHAIN REPO SCRATCH SUBFOLDER
#       a host blockc in a build folder other than REPO/build (SCRATCH/elsewhere): the
#       toolchain must take SLEEF from that folder's third_party/SUBFOLDER, as
#       scripts/setup fills it, not from REPO/build.
#   package_test.sh expect-error REPO SCRATCH MESSAGE [--env NAME=VALUE]... [cmake arguments...]
#       configures examples/app with the arguments (and environment) and passes if the
#       configuration fails with MESSAGE (blanks and line breaks compared as one blank:
#       CMake wraps errors).
set -euo pipefail
mode=$1
shift
unset CC CXX # a toolchain file names its compilers

# run LOG COMMAND...: runs COMMAND with its output in LOG, shown only if it fails.
run() {
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    echo "package_test: failed: $*" >&2
    exit 1
  fi
}

# package_dir BUILD_DIR PREFIX KIND: the folder to give as blockc_DIR: the build tree's
# own, or (KIND installed) that of BUILD_DIR installed into PREFIX.
package_dir() {
  if [ "$3" = installed ]; then
    run "$2.log" cmake --install "$1" --prefix "$2"
    dirname "$(find "$2" -name blockcConfig.cmake)"
  else
    echo "$1"
  fi
}

case $mode in
native)
  repo=$1 build=$2 scratch=$3 generator=$4 cc=$5 cxx=$6 kind=${7:-build}
  mkdir -p "$scratch"
  package=$(package_dir "$build" "$scratch/prefix" "$kind")
  src=$scratch/src
  rm -rf "$src"
  mkdir -p "$src"
  cp -r "$repo/examples/app" "$src/app"
  cp "$repo/examples/vector_add.bir" "$repo/examples/softmax.bir" "$src/"
  run "$scratch/configure.log" cmake -S "$src/app" -B "$scratch/app" -G "$generator" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -Dblockc_DIR="$package"
  run "$scratch/build.log" cmake --build "$scratch/app"
  "$scratch/app/app"
  # A kernel edited (here: touched) is compiled again, and only it.
  touch "$src/softmax.bir"
  run "$scratch/rebuild.log" cmake --build "$scratch/app"
  if ! grep -q "softmax.bir for" "$scratch/rebuild.log" ||
    grep -q "vector_add.bir for" "$scratch/rebuild.log"; then
    cat "$scratch/rebuild.log"
    echo "package_test: touching softmax.bir should recompile softmax.bir alone" >&2
    exit 1
  fi
  echo "package_test: the touched kernel alone was recompiled"
  ;;
sleef-root)
  toolchain=$1 repo=$2 scratch=$3 subfolder=$4
  elsewhere=$scratch/elsewhere
  rm -rf "$scratch"
  mkdir -p "$elsewhere/tools/blockc" "$elsewhere/third_party/$subfolder/usr"
  touch "$elsewhere/tools/blockc/blockc"
  run "$scratch/configure.log" cmake -S "$repo/tests/package/sleef-root" -B "$scratch/project" \
    -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DBLOCKC_COMPILER="$elsewhere/tools/blockc/blockc"
  if ! grep -qF "blockc SLEEF root: $elsewhere/third_party/$subfolder/usr" "$scratch/configure.log"; then
    cat "$scratch/configure.log"
    echo "package_test: the toolchain should take SLEEF from $elsewhere/third_party" >&2
    exit 1
  fi
  echo "package_test: SLEEF found beside the host blockc's build folder"
  ;;
cross)
  toolchain=$1 repo=$2 blockc=$3 scratch=$4 generator=$5
  shift 5
  mkdir -p "$scratch"
  run "$scratch/blockc-configure.log" cmake -S "$repo" -B "$scratch/blockc" -G "$generator" \
    -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DBLOCKC_COMPILER="$blockc" -DBLOCKC_WERROR=ON "$@"
  run "$scratch/blockc-build.log" cmake --build "$scratch/blockc"
  ctest --test-dir "$scratch/blockc" --output-on-failure
  ;;
cross-app)
  toolchain=$1 repo=$2 scratch=$3 generator=$4 kind=$5
  shift 5
  package=$(package_dir "$scratch/blockc" "$scratch/prefix" "$kind")
  app=$scratch/app-$kind
  run "$app-configure.log" cmake -S "$repo/examples/app" -B "$app" \
    -G "$generator" -DCMAKE_TOOLCHAIN_FILE="$toolchain" -Dblockc_DIR="$package" "$@"
  run "$app-build.log" cmake --build "$app"
  ctest --test-dir "$app" --output-on-failure -V
  ;;
expect-error)
  repo=$1 scratch=$2 message=$3
  shift 3
  environment=()
  while [ "${1:-}" = --env ]; do
    environment+=("$2")
    shift 2
  done
  cmake=$(command -v cmake)
  rm -rf "$scratch"
  if env "${environment[@]}" "$cmake" -S "$repo/examples/app" -B "$scratch" "$@" \
    >"$scratch.log" 2>&1; then
    cat "$scratch.log"
    echo "package_test: the configuration succeeded; expected the error: $message" >&2
    exit 1
  fi
  if ! tr -s ' \n' ' ' <"$scratch.log" | grep -qF -- "$message"; then
    cat "$scratch.log"
    echo "package_test: expected the error: $message" >&2
    exit 1
  fi
  echo "package_test: failed as expected with: $message"
  ;;
*)
  echo "package_test: unknown mode '$mode'" >&2
  exit 2
  ;;
esac
