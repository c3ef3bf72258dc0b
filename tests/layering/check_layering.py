#!/usr/bin/python3
"""Checks that blockc's folders are layers and every dependency points down.

Three checks, each a ctest of its own:

  includes  every #include of a blockc header names a folder that the
            including folder may use (LAYERS below), and no quoted include
            climbs out of its folder with "../";
  links     every CMake library links only libraries of folders it may use,
            read from the manifest that tests/layering/CMakeLists.txt writes
            at configure time (the libraries' folders and link lists);
  generic   generic lowering (lowering/) names no ISA, includes no
            Intrinsics*.h and tests no architecture: ISA code lives behind
            IsaLowering, in targets/ and riscv/.

Usage: check_layering.py includes ROOT
       check_layering.py links ROOT MANIFEST
       check_layering.py generic ROOT
       check_layering.py self-test
Prints each violation as FILE:LINE: what, and exits 1 if there is one.
"""

import os
import re
import sys
import tempfile

# The layers, bottom first. Each folder may use the folders listed for it and
# nothing else; DESIGN.md's table says the same in words. The ISA layer is
# targets/ (x86, aarch64 and the factory that registers every ISA, RISC-V's
# included) and riscv/.
LAYERS = {
    "frontend": set(),
    "runtime": set(),
    "targetinfo": {"frontend"},
    "lowering": {"frontend", "targetinfo"},
    "riscv": {"frontend", "targetinfo", "lowering"},
    "targets": {"frontend", "targetinfo", "lowering", "riscv"},
    "runtime/jit": {"frontend", "targetinfo", "lowering", "targets", "riscv", "runtime"},
    "tools": {"frontend", "targetinfo", "lowering", "targets", "riscv", "runtime",
              "runtime/jit"},
    "python": {"frontend", "targetinfo", "lowering", "targets", "riscv", "runtime",
               "runtime/jit"},
}

# Public header prefixes and the folder that owns each.
HEADER_OWNERS = [
    ("blockc/frontend/", "frontend"),
    ("blockc/targetinfo/", "targetinfo"),
    ("blockc/lowering/", "lowering"),
    ("blockc/targets/", "targets"),
    ("blockc/x86/", "targets"),
    ("blockc/aarch64/", "targets"),
    ("blockc/riscv/", "riscv"),
    ("blockc/jit/", "runtime/jit"),
    ("blockc/runtime", "runtime"),
    ("blockc/inspect/", "tools"),
]

# Libraries that a folder must not link although no blockc folder owns them.
FORBIDDEN_EXTERNAL = {"runtime": {"blockc_llvm", "LLVM"}}

SOURCE_SUFFIXES = (".cpp", ".h", ".hpp", ".c", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def folder_of(relative_path):
    """The layer folder holding `relative_path`, or None (tests, bench, ...)."""
    best = None
    for folder in LAYERS:
        if relative_path == folder or relative_path.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def owner_of_header(name):
    for prefix, owner in HEADER_OWNERS:
        if name.startswith(prefix):
            return owner
    return None


def source_files(root, folder):
    for directory, _, files in os.walk(os.path.join(root, folder)):
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(directory, name)


def check_includes(root):
    problems = []
    for folder in LAYERS:
        for path in source_files(root, folder):
            relative = os.path.relpath(path, root)
            own = folder_of(relative)
            if own != folder:
                continue  # runtime/jit's files are checked as runtime/jit
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    match = INCLUDE.match(line)
                    if not match:
                        continue
                    name = match.group(1)
                    if name.startswith("../"):
                        target = os.path.relpath(
                            os.path.normpath(os.path.join(os.path.dirname(path), name)), root)
                        used = folder_of(target)
                        if used != own:
                            problems.append(f"{relative}:{number}: includes {name}, a file of "
                                            f"{used or 'no layer'} reached by a relative path")
                        continue
                    used = owner_of_header(name)
                    if used and used != own and used not in LAYERS[own]:
                        problems.append(f"{relative}:{number}: {own}/ includes {name} of "
                                        f"{used}/, which is not below it")
    return problems


def read_manifest(path):
    """Lines `library<TAB>source folder<TAB>link;list`, as CMake wrote them."""
    libraries = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            name, source_dir, links = (line.split("\t") + ["", ""])[:3]
            libraries[name] = (source_dir, [l for l in links.split(";") if l])
    return libraries


def link_name(entry):
    """The library a link-list entry names, generator expressions removed;
    None for CMake's markers of the directory that added a link (::@...)."""
    if entry.startswith("::@"):
        return None
    return re.sub(r"^\$<LINK_ONLY:(.*)>$", r"\1", entry)


def check_links(root, manifest):
    libraries = read_manifest(manifest)
    problems = []
    folder_of_library = {}
    for name, (source_dir, _) in libraries.items():
        relative = os.path.relpath(os.path.realpath(source_dir), os.path.realpath(root))
        folder_of_library[name] = folder_of(relative)
    for name, (_, links) in sorted(libraries.items()):
        own = folder_of_library[name]
        if own is None:
            continue
        for entry in links:
            used_name = link_name(entry)
            if used_name is None:
                continue
            if used_name in FORBIDDEN_EXTERNAL.get(own, set()):
                problems.append(f"{name} ({own}/) links {used_name}, which {own}/ must not use")
                continue
            used = folder_of_library.get(used_name)
            if used and used != own and used not in LAYERS[own]:
                problems.append(f"{name} ({own}/) links {used_name} ({used}/), which is not "
                                f"below it")
    if not libraries:
        problems.append(f"{manifest}: no library listed; the manifest is not what CMake writes")
    return problems


# What generic lowering must not contain, code only (comments may explain the
# interface with examples): an ISA's name as an identifier or as one part of
# one (kRequiresSpacemitIme, x86_sse_sfence).
ISA_WORDS = {"x86", "x86_64", "aarch64", "arm64", "riscv", "riscv64", "avx", "avx2", "avx512",
             "sse", "neon", "sve", "sve2", "rvv", "amx", "ime", "spacemit", "xsmtvdot"}
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+")


def isa_word(code):
    """The first ISA name in `code`, whole or as part of an identifier."""
    for identifier in IDENTIFIER.findall(code):
        if identifier.lower() in ISA_WORDS:
            return identifier
        for piece in identifier.split("_"):
            if piece.lower() in ISA_WORDS:
                return identifier
            for part in CAMEL_PART.findall(piece):
                if part.lower() in ISA_WORDS:
                    return identifier
    return None


GENERIC_RULES = [
    (re.compile(r'#\s*include\s*[<"]llvm/IR/Intrinsics[A-Za-z0-9]+\.h[">]'),
     "includes an ISA's intrinsics header"),
    (re.compile(r"\bArch::"), "tests the target's architecture"),
    (re.compile(r"\.arch\s*[=!]="), "tests the target's architecture"),
    (re.compile(r"\bhasFeature\s*\("), "tests a target feature"),
    (re.compile(r"Intrinsic::(x86|aarch64|riscv)_"), "emits an ISA's intrinsic"),
]


def code_only(line, in_block_comment):
    """`line` without comments and string contents; and whether a /* */ is open."""
    out = []
    i = 0
    in_string = False
    while i < len(line):
        if in_block_comment:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i = end + 2
            in_block_comment = False
            continue
        c = line[i]
        if in_string:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_string = False
                out.append('"')
            i += 1
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_block_comment = True
            i += 2
            continue
        if c == '"':
            in_string = True
        out.append(c)
        i += 1
    return "".join(out), in_block_comment


def check_generic(root):
    problems = []
    for path in source_files(root, "lowering"):
        relative = os.path.relpath(path, root)
        in_block_comment = False
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                for pattern, what in GENERIC_RULES:
                    if pattern.search(line) and not line.lstrip().startswith("//"):
                        problems.append(f"{relative}:{number}: generic lowering {what}: "
                                        f"{line.strip()}")
                code, in_block_comment = code_only(line, in_block_comment)
                if line.lstrip().startswith("#"):
                    continue  # includes are the rules' business
                word = isa_word(code)
                if word:
                    problems.append(f"{relative}:{number}: generic lowering names an ISA "
                                    f"('{word}'): {line.strip()}")
    return problems


def self_test():
    """Each check finds a planted violation and passes the clean tree."""
    failures = []
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)

        write("lowering/lib/Good.cpp",
              '#include "blockc/targetinfo/Target.h"\n// x86 in a comment is fine\n'
              'const char *s = "AVX in a string";\nint runtimeSize, timeLimit;\n')
        write("targets/lib/Factory.cpp", '#include "blockc/riscv/IsaLowering.h"\n')
        if check_includes(root) or check_generic(root):
            failures.append("a clean tree was reported")
        write("lowering/lib/Up.cpp", '#include "blockc/x86/IsaLowering.h"\n')
        write("riscv/Up.cpp", '#include "blockc/targets/IsaLowerings.h"\n')
        write("targetinfo/lib/Climb.cpp", '#include "../../lowering/lib/CodeGen.h"\n')
        found = check_includes(root)
        for needle in ("lowering/lib/Up.cpp:1", "riscv/Up.cpp:1", "targetinfo/lib/Climb.cpp:1"):
            if not any(p.startswith(needle) for p in found):
                failures.append(f"includes: {needle} not reported in {found}")
        write("lowering/lib/Isa.cpp",
              '#include "llvm/IR/IntrinsicsX86.h"\nif (target.arch == Arch::X86_64) {}\n'
              "bool rvv = true;\nint kRequiresSpacemitIme;\n")
        found = check_generic(root)
        for needle in ("lowering/lib/Isa.cpp:1", "lowering/lib/Isa.cpp:2", "lowering/lib/Isa.cpp:3",
                       "lowering/lib/Isa.cpp:4"):
            if not any(p.startswith(needle) for p in found):
                failures.append(f"generic: {needle} not reported in {found}")
        manifest = os.path.join(root, "manifest.txt")
        with open(manifest, "w") as f:
            f.write(f"blockc_lowering\t{root}/lowering\tblockc_targetinfo;blockc_isa_x86\n")
            f.write(f"blockc_isa_x86\t{root}/targets/x86\tblockc_lowering\n")
            f.write(f"blockc_targetinfo\t{root}/targetinfo\tblockc_frontend\n")
            f.write(f"blockc_runtime\t{root}/runtime\t$<LINK_ONLY:blockc_llvm>\n")
        found = check_links(root, manifest)
        if not any("blockc_lowering (lowering/) links blockc_isa_x86" in p for p in found):
            failures.append(f"links: lowering -> x86 not reported in {found}")
        if not any("blockc_runtime (runtime/) links blockc_llvm" in p for p in found):
            failures.append(f"links: runtime -> LLVM not reported in {found}")
        if len(found) != 2:
            failures.append(f"links: expected 2 problems, got {found}")
    for failure in failures:
        print("self-test: " + failure)
    return 1 if failures else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "self-test":
        return self_test()
    if len(argv) == 3 and argv[1] in ("includes", "generic"):
        check = check_includes if argv[1] == "includes" else check_generic
        problems = check(argv[2])
    elif len(argv) == 4 and argv[1] == "links":
        problems = check_links(argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} layering problem(s); see DESIGN.md's folder table and "
              f"tests/layering/check_layering.py's LAYERS", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
