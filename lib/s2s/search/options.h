// SearchOptions: what a user can change per translate call, with marian-decoder's defaults.
#pragma once

namespace s2s {

struct SearchOptions {
  float max_length_factor = 3.0f;  // at most ceil(factor × source length incl. </s>) tokens
  bool allow_unk = false;          // marian-decoder suppresses <unk> unless --allow-unk
};

}  // namespace s2s
