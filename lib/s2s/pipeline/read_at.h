#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace s2s::pipeline {

// Reads up to `size` bytes of fd at `offset` with pread (the descriptor's position is neither used
// nor moved, so several readers may share one descriptor); returns how many, 0 at the file's end.
// An interrupted call is retried; a failed one throws InputError naming `name` and the reason.
std::size_t read_at(int fd, char* buffer, std::size_t size, std::uint64_t offset,
                    const std::string& name);

}  // namespace s2s::pipeline
