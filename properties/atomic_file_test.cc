#include "properties/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace stackcheck::properties {
namespace {

std::string Dir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string d = std::string(tmp != nullptr ? tmp : "/tmp") + "/atomic_file_test.XXXXXX";
  EXPECT_NE(mkdtemp(d.data()), nullptr);
  return d;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

mode_t Kind(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & S_IFMT;
}

TEST(WriteFileAtomically, ReplacesARegularFileOrCreatesOne) {
  const std::string d = Dir();
  ASSERT_TRUE(WriteFileAtomically(d + "/f", "one").ok());
  ASSERT_TRUE(WriteFileAtomically(d + "/f", "two").ok());
  EXPECT_EQ(Read(d + "/f"), "two");
}

TEST(WriteFileAtomically, WritesThroughASymlinkAndKeepsIt) {
  const std::string d = Dir();
  ASSERT_TRUE(WriteFileAtomically(d + "/target", "old").ok());
  ASSERT_EQ(symlink("target", (d + "/link").c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(d + "/link", "new").ok());
  EXPECT_EQ(Kind(d + "/link"), S_IFLNK);
  EXPECT_EQ(Read(d + "/target"), "new");
}

TEST(WriteFileAtomically, RefusesADanglingSymlinkAndADirectory) {
  const std::string d = Dir();
  ASSERT_EQ(symlink("nowhere", (d + "/dangling").c_str()), 0);
  absl::Status s = WriteFileAtomically(d + "/dangling", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("symbolic link to nothing"), std::string::npos) << s;
  EXPECT_EQ(Kind(d + "/dangling"), S_IFLNK);
  s = WriteFileAtomically(d, "x");
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s;
}

TEST(WriteFileAtomically, WritesADeviceOrAFifoInPlace) {
  // /dev/null stays a character device (a rename would replace the node).
  ASSERT_TRUE(WriteFileAtomically("/dev/null", "discarded").ok());
  EXPECT_EQ(Kind("/dev/null"), S_IFCHR);
  const std::string d = Dir();
  const std::string fifo = d + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // A reader, so that opening the FIFO for writing does not wait for one.
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(WriteFileAtomically(fifo, "through").ok());
  char buffer[16] = {};
  EXPECT_EQ(read(reader, buffer, sizeof buffer), 7);
  EXPECT_EQ(std::string(buffer), "through");
  close(reader);
  EXPECT_EQ(Kind(fifo), S_IFIFO);
}

}  // namespace
}  // namespace stackcheck::properties
