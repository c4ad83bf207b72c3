// A run's files: files or standard streams by descriptor, an output that must not be an input,
// and writes that end quietly on a closed pipe.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace s2s::corpus {

// An input file of a run and the flag that named it, e.g. {"in.txt", "-i"}; "-" is standard
// input, "" none.
using NamedInput = std::pair<std::string, std::string>;

// UsageError when `output` ("-": standard output) is one of `inputs`: the same regular file, by
// any path (hard or symbolic links, /dev/stdin, /proc/self/fd/N, a shell redirection). Writing it
// would truncate the text before it is read. Call before anything is opened for writing.
void refuse_output_over_input(const std::string& output, const std::vector<NamedInput>& inputs);

// Owns a descriptor it opened; standard streams ("-") are borrowed. InputError when a file
// cannot be opened. An output file is locked (an fcntl write lock, held while it is open) before
// it is truncated: a second s2s writing the same file, e.g. two --shard runs given the same
// plain -o, is refused with an Error naming the process that holds it.
class File {
 public:
  File(const std::string& path, bool for_output);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  bool owned_ = false;
};

// Writes everything, or returns false when the reader has gone (EPIPE: `s2s translate | head`),
// which is a normal way for a pipeline to end. Callers ignore SIGPIPE first.
bool write_all(int fd, const std::string& data);

// Takes the write lock of the output file open as `fd` (a regular file; others are not locked),
// or throws the Error described at File. Released when the process closes the file.
void lock_output(int fd, const std::string& path);

}  // namespace s2s::corpus
