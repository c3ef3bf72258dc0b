#pragma once

#include <filesystem>
#include <string>

namespace blockc::test {

/// Files a test writes go to a folder of the running test's own, under
/// gtest's temporary folder (TEST_TMPDIR, else /tmp). The folder is removed
/// when the test ends, unless the test failed: then it is kept, and named on
/// standard error, for a look. Without this every run of the suite left its
/// outputs behind (gigabytes after a few dozen runs, on a board whose /tmp
/// is memory).

/// A fresh, empty folder `name` inside the running test's folder.
std::filesystem::path scratchDir(const std::string &name);

/// The path `name` inside the running test's folder; nothing is made there.
std::filesystem::path scratchPath(const std::string &name);

} // namespace blockc::test
