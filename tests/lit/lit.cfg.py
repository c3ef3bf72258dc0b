# FileCheck tests of blockc's output: Block IR after passes, LLVM IR, assembly.
import sys

import lit.formats

config.name = "blockc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".bir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.substitutions.append(("%blockc", config.blockc))
config.substitutions.append(("%examples", config.examples))
config.substitutions.append(("%python", sys.executable))
config.environment["BLOCKC_CACHE_DIR"] = "off"
llvm_bin = config.llvm_tools_dir
config.environment["PATH"] = llvm_bin + os.pathsep + config.environment.get("PATH", "")
