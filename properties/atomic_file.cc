#include "properties/atomic_file.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stackcheck::properties {
namespace {

// The process's umask, read once (reading it means setting it).
mode_t Umask() {
  static const mode_t mask = [] {
    const mode_t m = umask(022);
    umask(m);
    return m;
  }();
  return mask;
}

absl::Status Errno(absl::string_view what, const std::string& path, int error) {
  return absl::UnavailableError(absl::StrCat(what, " ", path, ": ", std::strerror(error)));
}

// Writes `contents` into an existing file that is no regular file (a
// character device, a FIFO, a terminal): renaming a regular file over it
// would replace the device node (`--out /dev/null` as root), so it is
// opened and written as it is.
absl::Status WriteInPlace(const std::string& path, absl::string_view contents) {
  const int fd = open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path, errno);
  for (size_t done = 0; done < contents.size();) {
    const ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      close(fd);
      return Errno("error writing", path, error);
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return Errno("error writing", path, errno);
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckWritable(const std::string& path, absl::string_view flag) {
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(flag, " needs a file name"));
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (!std::filesystem::is_directory(dir) || access(dir.c_str(), W_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s %s: %s is not a directory this process can write to", flag, path, dir));
  }
  if (std::filesystem::is_directory(path)) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": is a directory"));
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      // Through the link: the link stays, what it points at is written.
      char resolved[PATH_MAX];
      if (realpath(path.c_str(), resolved) == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat(path, " is a symbolic link to nothing that exists (", std::strerror(errno),
                         "): not written"));
      }
      return WriteFileAtomically(resolved, contents);
    }
    if (S_ISDIR(st.st_mode)) {
      return absl::FailedPreconditionError(absl::StrCat(path, " is a directory: not written"));
    }
    if (!S_ISREG(st.st_mode)) return WriteInPlace(path, contents);
  }
  std::string temp = absl::StrCat(path, ".tmp.XXXXXX");
  const int fd = mkstemp(temp.data());
  if (fd < 0) return Errno("cannot create a temporary file for", path, errno);
  auto fail = [&](absl::string_view what, int error) {
    close(fd);
    unlink(temp.c_str());
    return Errno(what, path, error);
  };
  for (size_t done = 0; done < contents.size();) {
    const ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("error writing", n < 0 ? errno : EIO);
    done += static_cast<size_t>(n);
  }
  // mkstemp creates the file 0600; a written file gets the usual mode.
  if (fchmod(fd, 0666 & ~Umask()) != 0) return fail("cannot set the mode of", errno);
  if (fsync(fd) != 0) return fail("error writing", errno);
  if (close(fd) != 0) {
    const int error = errno;
    unlink(temp.c_str());
    return Errno("error writing", path, error);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    unlink(temp.c_str());
    return Errno("cannot write", path, error);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, std::size_t max_bytes,
                                          absl::string_view what) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path));
  }
  if (std::filesystem::is_directory(status)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a ", what));
  }
  if (!std::filesystem::is_regular_file(status)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a regular file (a ", what, " is read whole)"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  // In chunks, so that memory follows the file's size, not the cap; up to one
  // byte past the cap, so a file that grew since stat() is caught.
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= max_bytes && in) {
    const std::size_t want = std::min(sizeof chunk, max_bytes + 1 - text.size());
    in.read(chunk, static_cast<std::streamsize>(want));
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return absl::UnavailableError(absl::StrCat("error reading ", path));
  if (text.size() > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: larger than %d bytes; a %s is far smaller", path, max_bytes, what));
  }
  return text;
}

}  // namespace stackcheck::properties
